"""Rule learner: learner-PD / PFI / SHAP importance / ALE of one family's best configuration (Molnar et al. 2023)."""

from xaipipe.data.prepare import load_prepared
from xaipipe.explain.learner import learner_tables
from xaipipe.io import read_csv, read_json, write_csv
from xaipipe.runner import get_logger, run
from xaipipe.settings import LearnerEffectsSettings, LearnerSettings


def main(smk):
    settings = LearnerSettings.from_params(smk.params)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    out = learner_tables(
        data,
        settings,
        smk.wildcards.family,
        read_json(smk.input.best)["params"],
        reliance=read_csv(smk.input.reliance),  # the learner-PD of the model's top_k variables by MR
        options=smk.params.cv["options"],
        n_jobs=smk.threads,
        effects=LearnerEffectsSettings.from_params(smk.params.effects),  # learner-SHAP / ALE (issue 45)
    )
    get_logger().info("learner-PD for %s; %d refits", out.pd_features, settings.n_refits)
    for name, frame in out.to_frames().items():
        write_csv(smk.output[name], frame)


run(snakemake, main)  # noqa: F821
