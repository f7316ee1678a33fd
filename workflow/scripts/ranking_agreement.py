"""Rule ranking_agreement: MR vs mean |SHAP| vs split gain rankings of every model of one dataset."""
import _src  # noqa: F401  (puts the package in src/ on sys.path)
import pandas as pd

from xaipipe.explain.summary import grouped_mean_abs_shap, ranking_agreement
from xaipipe.io import read_json, with_ids, write_csv
from xaipipe.runner import run

MEASURES = ["model_reliance", "mean_abs_shap", "split_gain"]


def main(smk):
    info = read_json(smk.input.info)
    rank = smk.params.ranking
    frames, agreements = [], []
    for rel_path, gain_path, shap_path in zip(smk.input.reliance, smk.input.split_gain, smk.input.shap):
        rel = pd.read_csv(rel_path)
        rel = rel[(rel["estimator"] == rank["estimator"]) & (rel["loss"] == smk.params.loss)]
        model = rel["model"].iloc[0]
        imp = rel[["feature", rank["quantity"]]].rename(columns={rank["quantity"]: "model_reliance"})
        imp = imp.merge(pd.read_csv(gain_path)[["feature", "split_gain"]], on="feature", how="left")
        # mean |SHAP| per variable; a one-hot group's per-row SHAP is the sum of its columns'
        imp = imp.merge(grouped_mean_abs_shap(pd.read_csv(shap_path), info.get("feature_groups")),
                        on="feature", how="left")
        for m in MEASURES:
            imp[f"{m}_rank"] = imp[m].rank(ascending=False, method="min")
        frames.append(with_ids(imp, dataset=info["dataset"], model=model))
        agree = ranking_agreement(imp, MEASURES)
        agreements.append(with_ids(agree, dataset=info["dataset"], model=model))
    write_csv(smk.output.importances, pd.concat(frames, ignore_index=True))
    write_csv(smk.output.agreement, pd.concat(agreements, ignore_index=True))


run(snakemake, main)  # noqa: F821
