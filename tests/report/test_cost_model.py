"""xaipipe.report.cost_model: fitted exponents, the cost-model table, projections of a job graph."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from xaipipe.report.cost_model import (
    Cost,
    Model,
    dataset_rows,
    fit_affine,
    fit_costs,
    fit_power,
    job_dataset,
    job_key,
    project,
    read_model,
    report,
    write_model,
)
from xaipipe.report.schedule import Job

N = np.array([500, 1000, 2000, 4000, 16000, 64000], dtype=float)


@pytest.mark.parametrize("b", [0.0, 0.7, 1.0, 1.3, 2.0])
def test_fit_power_recovers_a_known_exponent(b):
    a = 3e-3
    exact = a * N**b
    fa, fb = fit_power(N, exact)
    assert fb == pytest.approx(b, abs=1e-12)
    assert fa == pytest.approx(a, rel=1e-9)
    # seeded multiplicative noise (10 % log-normal): the least-squares slope of scipy's linregress
    noisy = exact * np.exp(np.random.default_rng(0).normal(0.0, 0.1, N.size))
    ref = stats.linregress(np.log(N), np.log(noisy))
    fa, fb = fit_power(N, noisy)
    assert fb == pytest.approx(ref.slope, abs=1e-12)
    assert fa == pytest.approx(math.exp(ref.intercept), rel=1e-9)
    assert abs(fb - b) < 0.1


def test_fit_power_edge_cases():
    assert fit_power([1000.0], [8.0]) == (pytest.approx(8.0), 0.0)
    assert fit_power([1000.0, 1000.0], [2.0, 8.0]) == (pytest.approx(4.0), 0.0)
    for bad in (([], []), ([1.0, 2.0], [1.0]), ([0.0, 2.0], [1.0, 2.0]), ([1.0, 2.0], [1.0, -2.0])):
        with pytest.raises(ValueError):
            fit_power(*bad)


def test_fit_affine_against_polyfit_and_clipped_slope():
    y = 200.0 + 0.05 * N + np.random.default_rng(1).normal(0, 5, N.size)
    d, c = np.polyfit(N, y, 1)
    assert fit_affine(N, y) == (pytest.approx(c), pytest.approx(d))
    # a falling RSS is noise: the largest value, slope 0
    assert fit_affine([500, 1000, 2000], [300.0, 290.0, 280.0]) == (300.0, 0.0)


def test_job_key_and_dataset():
    assert job_key("dataset=simulated, family=xgboost") == "family=xgboost"
    assert job_key({"shard": "1", "dataset": "d", "family": "gb"}) == "family=gb, shard=1"
    assert job_key("") == ""
    assert job_dataset("dataset=simulated, family=xgboost") == "simulated"
    assert job_dataset("family=xgboost, dataset=my_table") == "my_table"
    assert job_dataset("name=mcr") is None


def _records(rule, key, a, b, ns=(500, 1000, 2000)):
    return [{"rule": rule, "key": key, "threads": 1, "n": n, "cpu_s": a * n**b, "rss_mb": 200 + 0.01 * n} for n in ns]


def test_fit_costs_and_table_round_trip(tmp_path):
    records = _records("cv", "family=random_forest", 1e-3, 1.25) + _records("fit", "family=random_forest", 2e-3, 1.0)
    costs = fit_costs(records)
    assert [(c.rule, c.key) for c in costs] == [("cv", "family=random_forest"), ("fit", "family=random_forest")]
    assert costs[0].cpu_b == pytest.approx(1.25)
    assert costs[0].rss_d_mb_per_row == pytest.approx(0.01)
    assert (costs[0].n_min, costs[0].n_max, costs[0].n_points) == (500, 2000, 3)
    path = tmp_path / "cost_model.tsv"
    write_model(path, costs, header=["a comment"])
    back = read_model(path)
    assert [(c.rule, c.key, c.n_max) for c in back] == [(c.rule, c.key, c.n_max) for c in costs]
    assert back[0].cpu_s(100_000) == pytest.approx(1e-3 * 100_000**1.25, rel=1e-4)
    assert back[0].extrapolated(100_000) and not back[0].extrapolated(1000)
    (tmp_path / "bad.tsv").write_text("rule\tkey\ncv\t\n")
    with pytest.raises(ValueError, match="not a cost-model table"):
        read_model(tmp_path / "bad.tsv")


def _cost(rule, key, a, b=1.0, threads=1, rss=(100.0, 0.0)):
    return Cost(rule, key, threads, 100, 1000, 2, a, b, rss[0], rss[1])


# a(3) -> b(2) -> d(1);  a -> c(4) -> d;  e (4 CPU-s on 2 threads: 2 s) independent -- the graph of
# tests/report/test_critical_path.py, its durations now predicted: cpu = a * n with n = 1000 rows.
def _graph():
    spec = {
        0: ("a", "", [], ["x"], 1),
        1: ("b", "family=f1", ["x"], ["y"], 1),
        2: ("c", "family=f2", ["x"], ["z"], 1),
        3: ("d", "", ["y", "z"], ["w"], 1),
        4: ("e", "", [], ["v"], 2),
    }
    jobs = {}
    for j, (rule, key, ins, outs, threads) in spec.items():
        wildcards = ", ".join(filter(None, ["dataset=t", key]))
        jobs[j] = Job(j, rule, wildcards=wildcards, threads=threads, inputs=ins, outputs=outs)
    model = Model(
        [
            _cost("a", "", 3e-3, rss=(100.0, 0.1)),
            _cost("b", "family=f1", 2e-3),
            _cost("c", "family=f2", 4e-3),
            _cost("d", "", 1e-3),
            _cost("e", "", 4e-3, threads=2, rss=(50.0, 0.0)),
        ]
    )
    return jobs, model


def test_projection_equals_the_hand_computed_critical_path():
    jobs, model = _graph()
    proj = project(jobs, {"t": 1000.0}, model, cores=(1, 2, 8, None))
    assert proj.cpu_s == pytest.approx({0: 3.0, 1: 2.0, 2: 4.0, 3: 1.0, 4: 4.0})
    assert proj.total_cpu_s == pytest.approx(14.0)
    # longest chain a -> c -> d = 3 + 4 + 1 (e: 4 CPU-s / 2 threads = 2 s)
    assert proj.critical_path_s == pytest.approx(8.0)
    assert proj.wall_s[None] == pytest.approx(8.0)
    assert proj.wall_s[8] == pytest.approx(8.0)
    assert proj.wall_s[1] == pytest.approx(14.0)  # one core: the sum of the CPU
    assert proj.wall_s[2] == pytest.approx(10.0)  # the schedule worked out in test_critical_path.py
    assert not proj.extrapolated
    # peak RSS: a = 100 + 0.1 * 1000 = 200 MB; on 8 cores a (200) and e (50) run together at t = 0
    assert proj.rss_mb[0] == pytest.approx(200.0)
    assert proj.peak_concurrent_mb[8] == pytest.approx(250.0)
    assert proj.peak_concurrent_mb[1] == pytest.approx(200.0)


def test_projection_of_unmeasured_kinds_rules_and_larger_tables():
    jobs, model = _graph()
    jobs[1].wildcards = "dataset=t, family=another"  # b's kind not measured: b's rule mean (its one fit)
    jobs[5] = Job(5, "unknown_rule", wildcards="dataset=t", inputs=["w"], outputs=["u"])
    proj = project(jobs, {"t": 10_000.0}, model, cores=(8,))
    assert proj.how[1] == "rule" and proj.how[5] == "none" and proj.how[0] == "job"
    assert proj.cpu_s[1] == pytest.approx(20.0) and proj.cpu_s[5] == 0.0
    assert proj.extrapolated == {0, 1, 2, 3, 4}  # 10 000 rows > the measured 1 000
    lines = []
    report(jobs, {"t": 10_000.0}, model, cores=8, memory_gb=1.0, out=lines.append)
    text = "\n".join(lines)
    assert "not modelled (0 s) 1: unknown_rule" in text
    assert "expected CPU: 0.04 CPU-hours" in text  # 3+20+4+1+4 = 32 CPU-s at n = 1000, x10
    # a alone: 100 MB + 0.1 MB x 10 000 rows = 1.1 GB
    assert "verdict: does NOT fit in 1 GB on 8 cores" in text
    lines = []
    report(jobs, {"t": 10_000.0}, model, cores=8, memory_gb=2.0, out=lines.append)
    assert "verdict: fits in 2 GB on 8 cores" in lines[-1]


def test_dataset_rows_of_simulated_and_file_sources(tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("x1,y\n" + "".join(f"{i},{i}\n" for i in range(37)))
    from tests.conftest import REPO

    config = {
        "datasets": {
            "simulated": {
                "source": {"kind": "simulated", "dgp": "friedman1", "n": 4321, "p": 10, "noise_sd": 1.0, "seed": 1}
            },
            "mine": {"source": {"kind": "file", "path": str(table)}, "task": "regression", "target": "y"},
        }
    }
    rows = dataset_rows(config, ["simulated", "mine"], REPO / "config" / "datasets.yaml")
    assert rows == {"simulated": 4321.0, "mine": 37.0}


def test_config_overrides_after_config():
    from xaipipe.report.cost_model import _config_overrides

    args = ["results/v1/x.csv", "--config", "uci_mirror=/m", "version=v2", "--cores", "2"]
    assert _config_overrides(args) == {"uci_mirror": "/m", "version": "v2"}
    assert _config_overrides(["--configfile", "a=b.yaml"]) == {}


def test_dataset_rows_from_the_uci_mirror():
    """Airfoil Self-Noise has 1 503 rows and Concrete 1 030 (UCI's pages), read from the mirror, no download."""
    from tests.conftest import REPO, mirror_path

    mirror = mirror_path()
    if not (mirror / "MANIFEST.tsv").is_file():
        pytest.skip(f"UCI mirror not found at {mirror}")
    config = {"uci_mirror": str(mirror), "datasets": {"airfoil": {}, "concrete": {}}}
    rows = dataset_rows(config, ["airfoil", "concrete"], REPO / "config" / "datasets.yaml")
    assert rows == {"airfoil": 1503.0, "concrete": 1030.0}
    assert (
        dataset_rows({"uci_mirror": "", "datasets": {"airfoil": {}}}, ["airfoil"], REPO / "config" / "datasets.yaml")
        == {}
    )


def _policies(**large_data):
    from xaipipe.report.cost_model import Policies

    section = {"min_rows": 10_000, "reliance_rows": 2000, "shap_rows": 1000, "pd_rows": 2000, "shap_trees": 100}
    return Policies.from_config({"large_data": {**section, **large_data}, "split": {"test_size": 0.2}})


def test_policies_cut_the_jobs_they_apply_to_above_min_rows_only():
    pol = _policies()
    rf = Cost("shap", "family=random_forest", 1, 500, 4000, 3, 1e-3, 1.0, 100.0, 0.0, trees=1800.0)
    rf_unknown = Cost("shap", "family=random_forest", 1, 500, 4000, 3, 1e-3, 1.0, 100.0, 0.0)
    dt = _cost("shap", "family=decision_tree", 1e-3)
    mr, pd_ice, cv = _cost("model_reliance", "family=x", 1.0), _cost("pd_ice", "family=x", 1.0), _cost("cv", "", 1.0)
    # 50 000 rows at test_size 0.2: 10 000 test rows, not above min_rows -> nothing changes
    for c in (rf, dt, mr, pd_ice, cv):
        assert pol.factor(c.rule, c, 50_000) == 1.0
    # 100 000 rows: 20 000 test rows
    assert pol.factor("model_reliance", mr, 100_000) == pytest.approx(2000 / 20_000)
    assert pol.factor("pd_ice", pd_ice, 100_000) == pytest.approx(2000 / 20_000)
    assert pol.factor("shap", dt, 100_000) == pytest.approx(1000 / 20_000)  # every test row explained otherwise
    assert pol.factor("shap", rf, 100_000) == pytest.approx(100 / 1800)  # rows capped already: the trees
    assert pol.factor("shap", rf_unknown, 100_000) == 1.0  # trees not measured: its full cost
    assert pol.factor("cv", cv, 100_000) == 1.0
    ale = _cost("ale", "family=x", 1.0)  # ALE 2 predictions per row and variable, the PD beside it K + 1 = 21
    assert pol.factor("ale", ale, 100_000) == pytest.approx((2 + 21 * 2000 / 20_000) / 23)
    assert pol.factor("ale", ale, 50_000) == 1.0
    assert _policies(reliance_rows=None).factor("model_reliance", mr, 100_000) == 1.0


def test_projection_with_policies_and_the_trees_column(tmp_path):
    jobs = {
        0: Job(0, "model_reliance", wildcards="dataset=t, family=x", threads=1, inputs=[], outputs=["a"]),
        1: Job(1, "shap", wildcards="dataset=t, family=random_forest", threads=1, inputs=[], outputs=["b"]),
    }
    records = [
        {"rule": r, "key": k, "threads": 1, "n": n, "cpu_s": 1e-3 * n, "rss_mb": 100.0, **extra}
        for n in (500, 1000)
        for r, k, extra in (
            ("model_reliance", "family=x", {}),
            ("shap", "family=random_forest", {"n_trees": 900 if n == 500 else 1800}),
        )
    ]
    costs = fit_costs(records)
    assert [c.trees for c in costs] == [None, 1800.0]  # the forest's trees at the largest n
    write_model(tmp_path / "m.tsv", costs)
    model = Model(read_model(tmp_path / "m.tsv"))
    plain = project(jobs, {"t": 100_000.0}, model, cores=(None,))
    cut = project(jobs, {"t": 100_000.0}, model, cores=(None,), policies=_policies())
    assert plain.cpu_s == pytest.approx({0: 100.0, 1: 100.0})
    assert cut.cpu_s == pytest.approx({0: 10.0, 1: 100.0 * 100 / 1800})
    assert cut.how == {0: "job+policy", 1: "job+policy"}
    # a table written before the trees column (and the memory-regime and policy columns after it) still reads
    text = (tmp_path / "m.tsv").read_text().splitlines()
    old = ["\t".join(line.split("\t")[:-7]) for line in text]
    (tmp_path / "old.tsv").write_text("\n".join(old) + "\n")
    assert [c.trees for c in read_model(tmp_path / "old.tsv")] == [None, None]


def test_forest_kinds_get_a_memory_regime_per_side_of_the_block_rows(tmp_path):
    """Forests fitted whole below the block rows and in blocks above: a forest-holding kind's RSS is
    fitted on each side (the points of one regime do not bend the other's line); a kind measured
    above at one size only gets the line through the smallest RSS and that point; other kinds, and
    no regime rows, keep one fit. The new columns survive the table."""
    n = [1000.0, 2000.0, 4000.0, 16000.0, 64000.0]
    whole = [300.0 + 0.7 * x for x in n[:3]]  # the whole forest grows with the rows
    blocks = [400.0 + 0.02 * x for x in n[3:]]  # one block at a time: much flatter
    records = [
        {"rule": "model_reliance", "key": "family=random_forest", "threads": 1, "n": x, "cpu_s": 1e-3 * x, "rss_mb": m}
        for x, m in zip(n, whole + blocks)
    ]
    records += [
        {"rule": "rashomon", "key": "", "threads": 2, "n": x, "cpu_s": 2e-3 * x, "rss_mb": 200.0 + 0.5 * x}
        for x in n[:4]
    ]
    records += [
        {"rule": "fit", "key": "family=xgboost", "threads": 1, "n": x, "cpu_s": 1e-3 * x, "rss_mb": 150.0 + 0.01 * x}
        for x in n
    ]
    costs = {c.rule: c for c in fit_costs(records, memory_regime_n=12500)}
    mr, rash, xgb = costs["model_reliance"], costs["rashomon"], costs["fit"]
    assert (mr.rss_c_mb, mr.rss_d_mb_per_row) == pytest.approx((300.0, 0.7))
    assert (mr.rss_from_n, mr.rss_c2_mb, mr.rss_d2_mb_per_row) == pytest.approx((12500, 400.0, 0.02))
    assert mr.rss_mb(4000) == pytest.approx(3100.0) and mr.rss_mb(100_000) == pytest.approx(2400.0)
    # one point above: the line through the smallest RSS of any job (150 + 0.01 * 1000 = 160) and it
    assert rash.rss_mb(16000) == pytest.approx(200.0 + 0.5 * 16000)
    assert rash.rss_mb(32000) == pytest.approx(160.0 + (8200.0 - 160.0) * 2)
    assert xgb.rss_from_n is None and (xgb.rss_c_mb, xgb.rss_d_mb_per_row) == pytest.approx((150.0, 0.01))
    one = {c.rule: c for c in fit_costs(records)}["model_reliance"]
    assert one.rss_from_n is None and one.rss_mb(1000) > 2 * mr.rss_mb(1000)  # the mixed fit: bent
    path = tmp_path / "cost_model.tsv"
    write_model(path, list(costs.values()))
    back = {c.rule: c for c in read_model(path)}
    for rule in costs:
        for x in (1000, 16000, 100_000):
            assert back[rule].rss_mb(x) == pytest.approx(costs[rule].rss_mb(x), rel=1e-5)


def test_records_measured_with_the_policies_are_fitted_apart_and_projected_as_measured(tmp_path):
    """A policy-cut rule measured above min_rows / test_size rows (50 000) measures the cut work: it
    stays out of the CPU fit (else the factor would cut it twice) and is projected from its own fit,
    b = 1 from one size, where the policies apply; without policies, or below, the plain fit; a
    rule the policies do not cut (fit) keeps every point in one fit."""
    n = [1000.0, 4000.0, 16000.0]
    records = [
        {"rule": "model_reliance", "key": "family=x", "threads": 1, "n": x, "cpu_s": 1e-2 * x, "rss_mb": 100.0}
        for x in n
    ]
    records.append(
        {"rule": "model_reliance", "key": "family=x", "threads": 1, "n": 64000.0, "cpu_s": 1500.0, "rss_mb": 100.0}
    )
    records += [
        {"rule": "fit", "key": "family=x", "threads": 1, "n": x, "cpu_s": 1e-3 * x**1.5, "rss_mb": 100.0}
        for x in n + [64000.0]
    ]
    costs = {c.rule: c for c in fit_costs(records, policy_n=50_000)}
    mr, fit = costs["model_reliance"], costs["fit"]
    assert (mr.cpu_a, mr.cpu_b) == pytest.approx((1e-2, 1.0))  # the 64 000 point left out
    assert mr.policy_from_n == 50_000 and mr.policy_cpu_s(64000) == pytest.approx(1500.0)
    assert mr.policy_cpu_s(100_000) == pytest.approx(1500.0 * 100 / 64) and mr.policy_cpu_s(16000) is None
    assert fit.policy_from_n is None and fit.cpu_b == pytest.approx(1.5)
    write_model(tmp_path / "m.tsv", list(costs.values()))
    model = Model(read_model(tmp_path / "m.tsv"))
    job = {0: Job(0, "model_reliance", wildcards="dataset=t, family=x", threads=1, inputs=[], outputs=["a"])}
    with_policies = project(job, {"t": 100_000.0}, model, cores=(None,), policies=_policies())
    assert with_policies.cpu_s[0] == pytest.approx(1500.0 * 100 / 64)  # measured, not 1 000 x 2 000 / 20 000
    assert with_policies.how[0] == "job+policy(measured)"
    plain = project(job, {"t": 100_000.0}, model, cores=(None,))
    assert plain.cpu_s[0] == pytest.approx(1000.0)
    below = project(job, {"t": 40_000.0}, model, cores=(None,), policies=_policies())
    assert below.cpu_s[0] == pytest.approx(400.0)  # 8 000 test rows: no policy


def test_twin_shards_are_predicted_per_replicate_of_the_shard():
    """A ``twin_shard`` fit is per replicate (benchmarks/twins_cost.py): shard k of S runs the
    replicates k, k + S, ... < R, so R = 10 in S = 4 shards gives 3, 3, 2, 2 replicates."""
    from xaipipe.report.cost_model import Policies

    model = Model([Cost("twin_shard", "", 1, 400, 1600, 3, 0.5, 1.0, 300.0, 0.0)])  # 0.5 n CPU-s per replicate
    jobs = {k: Job(k, "twin_shard", wildcards=f"dataset=t, shard={k}") for k in range(4)}
    section = {"min_rows": 10_000, "reliance_rows": 2000, "shap_rows": 1000, "pd_rows": 2000, "shap_trees": 100}
    pol = Policies.from_config(
        {"large_data": section, "split": {"test_size": 0.2}, "twins": {"n_repetitions": 10, "n_shards": 4}}
    )
    assert [pol.replicates(f"shard={k}") for k in range(4)] == [("", 3), ("", 3), ("", 2), ("", 2)]
    proj = project(jobs, {"t": 1000.0}, model, cores=(2,), policies=pol)
    assert [proj.cpu_s[k] for k in range(4)] == pytest.approx([1500.0, 1500.0, 1000.0, 1000.0])
    assert proj.how[0] == "job×3 replicates"
    # without the configuration: the defaults R = 100 in 4 shards, 25 replicates each
    proj = project(jobs, {"t": 1000.0}, model, cores=(2,))
    assert proj.total_cpu_s == pytest.approx(4 * 25 * 500.0)
    # a shard beyond those measured: the same per-replicate fit (the key drops the shard)
    assert Policies(None, 0.2, twin_shards=8).replicates("shard=7") == ("", 12)
