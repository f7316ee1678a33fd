"""The default workflow profile: result-neutral scheduling settings that are measured in
docs/performance.md and must not be lost silently."""

import yaml
from snakemake.settings.types import MaxJobsPerTimespan

from tests.conftest import REPO


def test_default_profile_slows_the_rate_limiter_wake_ups():
    # Snakemake 9.27's rate limiter wakes the scheduler once per timespan per finished job
    # (docs/history/2026-11_performance.md, "Snakemake's own scheduler loop"): the profile stretches the
    # timespan, and its limit must stay far above the number of jobs of the full study.
    profile = yaml.safe_load((REPO / "profiles/default/config.yaml").read_text())
    limit = MaxJobsPerTimespan.parse_choice(profile["max-jobs-per-timespan"])
    assert 3 <= limit.timespan <= 10  # longer: a long wait at exit; shorter: the wake-ups come back
    assert limit.max_jobs / limit.timespan >= 100  # never the bottleneck (372 jobs in all)
