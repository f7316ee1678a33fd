"""Rule learner: learner-PD / PFI / SHAP importance / ALE of one family's best configuration (Molnar et al. 2023)."""

from xaipipe.config import LearnerSettings
from xaipipe.data import load_prepared
from xaipipe.explain import learner_tables
from xaipipe.io import read_csv, read_json, write_csv
from xaipipe.runner import get_logger, run


def main(smk):
    settings = LearnerSettings.from_params(smk.params.settings)
    data = load_prepared(smk.input.table, smk.input.info, smk.input.split)
    out = learner_tables(
        data,
        settings,
        settings.family,
        read_json(smk.input.best)["params"],
        reliance=read_csv(smk.input.reliance),  # the learner-PD of the model's top_k variables by MR
        n_jobs=smk.threads,
    )
    get_logger().info("learner-PD for %s; %d refits", out.pd_features, settings.n_refits)
    for name, frame in out.to_frames().items():
        write_csv(smk.output[name], frame)


run(snakemake, main)  # noqa: F821
