"""The Vega-Lite specification of one dataset's explorer (built as JSON, validated by Altair).

Every interaction is declarative Vega-Lite: parameters bound to inputs (ε slider, scope,
MR estimator and quantity, the cloud's two variables, the effects' variable), an interval
selection (``brush``) on the set view and a point selection (``pick``) on the rows view; every
view recomputes from the embedded member tables through transforms (``lookup``, ``calculate``,
``filter``, ``aggregate``, ``window``). The membership rule, MCR, the variable importance cloud and
the coverage rate are the ones of :mod:`xaipipe.report.explorer.data` (tested in a browser).
"""

from __future__ import annotations

from .data import CROSS_FAMILY, DatasetView, compact_csv, members_at, packed_effects, packed_predictions

__all__ = ["dataset_spec", "TABLES"]

#: The embedded tables and how the page parses their columns.
TABLES = {
    "members": {
        "member": "number",
        "cv_loss": "number",
        "test_loss": "number",
        "gap_family": "number",
        "gap_cross_family": "number",
        "is_reference_family": "number",
        "is_reference_cross_family": "number",
        "function": "number",
        "jitter": "number",
    },
    "reliance": {"member": "number", "mr_ratio": "number", "mr_difference": "number"},
    # one line per member: its test predictions in row order, space-separated (_unpack_predictions)
    "predictions": {"member": "number"},
    "rows": None,  # every column numeric: Vega-Lite's default type inference of CSV
    "values": {"row": "number", "value": "number"},
    # one line per member, kind and variable: its curve's values in grid order, space-separated
    "effects": {"member": "number"},
    "grid": {"x": "number"},
}

_MEMBER_FIELDS = [
    "family",
    "config_id",
    "test_loss",
    "gap_family",
    "gap_cross_family",
    "is_reference_family",
    "is_reference_cross_family",
    "function",
]

W, H = 330, 230

#: The unit of ε and of the gaps under each ``rashomon.epsilon_mode`` (xaipipe.rashomon.sets).
EPSILON_UNITS = {
    "se": "SE of the reference's CV loss",
    "relative": "fraction of the reference's CV loss",
    "absolute": "CV loss units",
}


def _data(name: str) -> dict:
    parse = TABLES[name]
    return {"name": name, "format": {"type": "csv"} | ({"parse": parse} if parse is not None else {})}


def _membership(lookup: bool = True) -> list[dict]:
    """Transforms giving each row its member's ``gap`` in the chosen scope, ``in_set`` (``gap <= eps``,
    the rule of :func:`xaipipe.rashomon.sets.rashomon_set`), ``is_ref`` and ``brushed``."""
    out = []
    if lookup:
        out.append({"lookup": "member", "from": {"data": _data("members"), "key": "member", "fields": _MEMBER_FIELDS}})
    out += [
        {
            "calculate": f"scope == '{CROSS_FAMILY}' ? datum.gap_cross_family : "
            "(datum.family == scope ? datum.gap_family : null)",
            "as": "gap",
        },
        {"calculate": "isValid(datum.gap) && datum.gap <= eps", "as": "in_set"},
        {
            "calculate": f"scope == '{CROSS_FAMILY}' ? datum.is_reference_cross_family == 1 : "
            "(datum.family == scope && datum.is_reference_family == 1)",
            "as": "is_ref",
        },
        # the brushed group (every member while the brush is empty): Vega-Lite's own selection test
        {
            "calculate": "!length(data('brush_store')) || vlSelectionTest('brush_store', datum)",
            "as": "brushed",
        },
        {"calculate": "datum.in_set && datum.brushed", "as": "selected"},
    ]
    return out


def _unpack_predictions() -> list[dict]:
    """One tuple per member and test row (``member``, ``row``, ``prediction``) from the embedded lines
    ``member, "p_0 p_1 ... p_n-1"`` (half the size of a long table: no ids repeated per value)."""
    return [
        {"calculate": "split(datum.values, ' ')", "as": "prediction"},
        {"calculate": "sequence(0, length(datum.prediction))", "as": "row"},
        {"flatten": ["prediction", "row"]},
        {"calculate": "toNumber(datum.prediction)", "as": "prediction"},
    ]


def _mr() -> list[dict]:
    return [
        {"filter": "datum.estimator == estimator"},
        {"calculate": "quantity == 'mr_ratio' ? datum.mr_ratio : datum.mr_difference", "as": "mr"},
    ]


def _params(view: DatasetView) -> list[dict]:
    feats = view.features
    second = feats[1] if len(feats) > 1 else feats[0]
    effect_feats = list(dict.fromkeys(view.effects["feature"])) or feats

    def select(name, value, options, label):
        return {"name": name, "value": value, "bind": {"input": "select", "options": options, "name": label}}

    return [
        {
            "name": "eps",
            "value": view.epsilon,
            "bind": {
                "input": "range",
                "min": 0,
                "max": view.epsilon_max,
                "step": 0.01,
                "name": f"ε ({EPSILON_UNITS.get(view.epsilon_mode, view.epsilon_mode)}) ",
            },
        },
        select("scope", view.scope, view.scopes, "scope "),
        select("estimator", view.estimators[0], view.estimators, "MR estimator "),
        select("quantity", "mr_ratio", ["mr_ratio", "mr_difference"], "MR quantity "),
        select("var_x", feats[0], feats, "cloud: x variable "),
        select("var_y", second, feats, "cloud: y variable "),
        select("effect_var", effect_feats[0], effect_feats, "effects: variable "),
    ]


def _text(transform: list, expr: str, *, data: str = "members", width: int = W) -> dict:
    return {
        "data": _data(data),
        "transform": [*transform, {"calculate": expr, "as": "label"}],
        "mark": {"type": "text", "align": "left", "fontSize": 12},
        "encoding": {"text": {"field": "label"}, "y": {"value": 8}, "x": {"value": 0}},
        "width": width,
        "height": 16,
    }


def _family_color(view: DatasetView) -> dict:
    """Family colours fixed by the dataset's families (the same in every view, whatever is selected)."""
    return {
        "field": "family",
        "type": "nominal",
        "title": "family",
        "scale": {"domain": sorted(set(view.members["family"]))},
    }


def _set_view(view: DatasetView) -> dict:
    color = _family_color(view)
    scatter = {
        "data": _data("members"),
        "transform": [*_membership(lookup=False), {"filter": "isValid(datum.gap)"}],
        "width": W,
        "height": H,
        "title": "The set: test loss of every candidate (brush to select a group)",
        "layer": [
            {  # the plot area, for a test's brush (invisible)
                "name": "set_frame",
                "transform": [{"aggregate": [{"op": "count", "as": "n"}]}],
                "mark": {"type": "rect", "opacity": 0},
                "encoding": {"x": {"value": 0}, "x2": {"value": W}, "y": {"value": 0}, "y2": {"value": H}},
            },
            {
                "name": "set_points",
                "params": [{"name": "brush", "select": {"type": "interval", "encodings": ["x", "y"]}}],
                "mark": {"type": "point", "filled": True, "size": 45},
                "encoding": {
                    "x": {
                        "field": "gap",
                        "type": "quantitative",
                        "title": f"gap to the reference ({EPSILON_UNITS.get(view.epsilon_mode, view.epsilon_mode)})",
                    },
                    "y": {"field": "test_loss", "type": "quantitative", "title": "test loss", "scale": {"zero": False}},
                    "color": color,
                    "opacity": {"condition": {"test": "datum.in_set", "value": 0.95}, "value": 0.15},
                    "shape": {"condition": {"test": "datum.is_ref", "value": "diamond"}, "value": "circle"},
                    "tooltip": [
                        {"field": "family"},
                        {"field": "config_id"},
                        {"field": "cv_loss", "format": ".5g"},
                        {"field": "test_loss", "format": ".5g"},
                        {"field": "gap", "format": ".3f"},
                        {"field": "function", "title": "function id"},
                    ],
                },
            },
            {
                "transform": [{"filter": "datum.is_ref"}],
                "mark": {"type": "point", "shape": "diamond", "size": 160, "color": "black", "filled": False},
                "encoding": {
                    "x": {"field": "gap", "type": "quantitative"},
                    "y": {"field": "test_loss", "type": "quantitative"},
                },
            },
            {
                "transform": [{"aggregate": [{"op": "count", "as": "n"}]}, {"calculate": "eps", "as": "eps_line"}],
                "mark": {"type": "rule", "strokeDash": [4, 3], "color": "gray"},
                "encoding": {"x": {"field": "eps_line", "type": "quantitative"}},
            },
        ],
    }
    strip = {
        "data": _data("members"),
        "transform": [*_membership(lookup=False), {"filter": "isValid(datum.gap)"}],
        "width": 40 * max(2, len(set(view.members["family"]))),
        "height": H,
        "title": "by family",
        "mark": {"type": "point", "filled": True, "size": 30},
        "encoding": {
            "x": {"field": "family", "type": "nominal", "title": None},
            "xOffset": {"field": "jitter", "type": "quantitative", "scale": {"domain": [-1.2, 1.2]}},
            "y": {"field": "test_loss", "type": "quantitative", "title": "test loss", "scale": {"zero": False}},
            "color": _family_color(view),
            "opacity": {"condition": {"test": "datum.selected", "value": 0.95}, "value": 0.12},
            "tooltip": [{"field": "family"}, {"field": "config_id"}, {"field": "test_loss", "format": ".5g"}],
        },
    }
    counts = [*_membership(lookup=False)]
    summary = {
        "vconcat": [
            _text(
                [*counts, {"filter": "datum.in_set"}, _count_aggregate()],
                "'R(ε = ' + format(eps, '.3~f') + ') of ' + scope + ': ' + datum.n + ' members, ' "
                "+ datum.n_functions + ' distinct functions'",
            ),
            _text(
                [*counts, {"filter": "datum.selected"}, _count_aggregate()],
                "'selected (set ∩ brush): ' + datum.n + ' members, ' + datum.n_functions + ' distinct functions'",
            ),
        ]
    }
    return {"vconcat": [summary, {"hconcat": [scatter, strip]}]}


def _count_aggregate() -> dict:
    return {
        "aggregate": [{"op": "count", "as": "n"}, {"op": "distinct", "field": "function", "as": "n_functions"}],
    }


def _envelope(value: str, selected: str, fields: tuple, out: tuple, groupby: list, *more: dict) -> list[dict]:
    """Vega-Lite transforms of an envelope over the selected members: ``value`` of the rows where
    ``selected`` holds and of the reference (as ``fields``), then per ``groupby`` their minimum,
    maximum and the reference's (named ``out``) and the ops ``more``."""
    band, ref = fields
    low, high, reference = out
    return [
        {"calculate": f"{selected} ? {value} : null", "as": band},
        {"calculate": f"datum.is_ref ? {value} : null", "as": ref},
        {
            "aggregate": [
                {"op": "min", "field": band, "as": low},
                {"op": "max", "field": band, "as": high},
                {"op": "max", "field": ref, "as": reference},
                *more,
            ],
            "groupby": groupby,
        },
    ]


def _per_feature() -> list[dict]:
    """Rows of the reliance table aggregated per variable: MCR⁻ / MCR⁺ over the selected members
    (``min`` / ``max`` skip undefined MR, as ``mcr_interval``) and the reference's MR."""
    base = [*_membership(), *_mr()]
    per_feature = [
        *base,
        *_envelope(
            "datum.mr",
            "datum.selected",
            ("mr_selected", "mr_ref"),
            ("mcr_minus", "mcr_plus", "mr_reference"),
            ["feature"],
            {"op": "valid", "field": "mr_selected", "as": "n_members"},
        ),
    ]
    return per_feature


def _feature_axis() -> dict:
    return {
        "field": "feature",
        "type": "nominal",
        "title": None,
        "sort": {"field": "mr_reference", "order": "descending"},
    }


def _mcr_views() -> list[dict]:
    """MCR⁻ to MCR⁺ per variable (bar) with the reference's MR (diamond), and the numbers as text."""
    per_feature, y = _per_feature(), _feature_axis()
    mcr = {
        "data": _data("reliance"),
        "transform": per_feature,
        "width": W,
        "height": {"step": 18},
        "title": "Importance: MCR⁻ to MCR⁺ (bar) and the reference's MR (diamond)",
        "layer": [
            {
                "mark": {"type": "rule", "strokeWidth": 5, "opacity": 0.6},
                "encoding": {
                    "y": y,
                    "x": {"field": "mcr_minus", "type": "quantitative", "title": "MR", "scale": {"zero": False}},
                    "x2": {"field": "mcr_plus"},
                    "tooltip": [
                        {"field": "feature"},
                        {"field": "mcr_minus", "format": ".4f", "title": "MCR⁻"},
                        {"field": "mr_reference", "format": ".4f", "title": "MR (reference)"},
                        {"field": "mcr_plus", "format": ".4f", "title": "MCR⁺"},
                        {"field": "n_members"},
                    ],
                },
            },
            {
                "mark": {"type": "point", "shape": "diamond", "filled": True, "color": "black", "size": 60},
                "encoding": {"y": y, "x": {"field": "mr_reference", "type": "quantitative"}},
            },
        ],
    }
    table = {
        "data": _data("reliance"),
        "transform": [
            *per_feature,
            {
                "calculate": "datum.feature + ':  MCR⁻ ' + format(datum.mcr_minus, '.4f') + '  ·  MR(ref) ' "
                "+ format(datum.mr_reference, '.4f') + '  ·  MCR⁺ ' + format(datum.mcr_plus, '.4f') "
                "+ '  (' + datum.n_members + ' members)'",
                "as": "label",
            },
        ],
        "mark": {"type": "text", "align": "left", "fontSize": 11},
        "encoding": {"text": {"field": "label"}, "y": {**y, "axis": None}, "x": {"value": 0}},
        "width": W,
        "height": {"step": 16},
        "title": "MCR of the selected members",
    }
    return [mcr, table]


def _max_of(*fields: str) -> list[dict]:
    """Vega-Lite aggregate ops: the maximum of each field, under its own name."""
    return [{"op": "max", "field": field, "as": field} for field in fields]


def _cloud_view(view: DatasetView) -> dict:
    """The variable importance cloud: two variables' MR over the selected members, one point per function."""
    base = [*_membership(), *_mr()]
    cloud = {
        "data": _data("reliance"),
        "transform": [
            *base,
            {"filter": "datum.selected"},
            {"calculate": "datum.feature == var_x ? datum.mr : null", "as": "mr_x"},
            {"calculate": "datum.feature == var_y ? datum.mr : null", "as": "mr_y"},
            {"aggregate": _max_of("mr_x", "mr_y", "is_ref"), "groupby": ["member", "function", "family"]},
            # distinct functions drawn once: members with bitwise-equal test predictions have equal MR
            {
                "aggregate": [{"op": "count", "as": "multiplicity"}, *_max_of("mr_x", "mr_y", "is_ref")],
                "groupby": ["function", "family"],
            },
        ],
        "width": W,
        "height": H,
        "title": "Variable importance cloud (Dong & Rudin 2020): MR of two variables",
        "mark": {"type": "point", "filled": True, "opacity": 0.75},
        "encoding": {
            "x": {"field": "mr_x", "type": "quantitative", "title": "MR of the x variable", "scale": {"zero": False}},
            "y": {"field": "mr_y", "type": "quantitative", "title": "MR of the y variable", "scale": {"zero": False}},
            "color": _family_color(view),
            "size": {
                "field": "multiplicity",
                "type": "quantitative",
                "title": "members (one function)",
                "scale": {"domainMin": 1},
                "legend": {"format": "d", "tickMinStep": 1},
            },
            "shape": {"condition": {"test": "datum.is_ref", "value": "diamond"}, "value": "circle"},
            "tooltip": [
                {"field": "family"},
                {"field": "function", "title": "function id"},
                {"field": "multiplicity", "title": "members with this function"},
                {"field": "mr_x", "format": ".4f"},
                {"field": "mr_y", "format": ".4f"},
            ],
        },
    }
    return cloud


def _importance_view(view: DatasetView) -> dict:
    return {"hconcat": [{"vconcat": _mcr_views()}, _cloud_view(view)]}


def _effects_view(view: DatasetView) -> dict:
    per_grid = [
        {"filter": "datum.feature == effect_var"},
        # one tuple per member and grid point from the packed lines, with the grid's x and level
        {"calculate": "split(datum.values, ' ')", "as": "value"},
        {"calculate": "sequence(0, length(datum.value))", "as": "grid_index"},
        {"flatten": ["value", "grid_index"]},
        {"calculate": "toNumber(datum.value)", "as": "value"},
        {"calculate": "datum.kind + '|' + datum.feature + '|' + datum.grid_index", "as": "key"},
        {"lookup": "key", "from": {"data": _data("grid"), "key": "key", "fields": ["x", "level"]}},
        *_membership(),
        *_envelope(
            "datum.value",
            "datum.selected && !datum.is_ref",
            ("band_value", "ref_value"),
            ("lo", "hi", "ref"),
            ["kind", "grid_index", "x", "level"],
        ),
        {
            "calculate": "isValid(datum.lo) && isValid(datum.ref) ? (datum.ref >= datum.lo && datum.ref <= datum.hi ? 1 : 0) : null",
            "as": "inside",
        },
    ]
    panels = []
    for kind, title in (("pd", "PD"), ("ale", "ALE")):
        grid = [*per_grid, {"filter": f"datum.kind == '{kind}'"}]
        x = {
            "field": "x",
            "type": "quantitative",
            "title": "variable value (level: its position)",
            "scale": {"zero": False},
        }
        tip = [
            {"field": "level"},
            {"field": "x"},
            {"field": "lo", "format": ".4g"},
            {"field": "ref", "format": ".4g"},
            {"field": "hi", "format": ".4g"},
        ]
        panels.append(
            {
                "vconcat": [
                    {
                        "data": _data("effects"),
                        "transform": grid,
                        "width": W,
                        "height": H - 40,
                        "title": f"{title}: band of the other selected members, reference (black)",
                        "layer": [
                            {
                                "transform": [{"filter": "isValid(datum.lo)"}],
                                "mark": {"type": "area", "opacity": 0.3, "color": "#4c78a8"},
                                "encoding": {
                                    "x": x,
                                    "y": {
                                        "field": "lo",
                                        "type": "quantitative",
                                        "title": title,
                                        "scale": {"zero": False},
                                    },
                                    "y2": {"field": "hi"},
                                },
                            },
                            {
                                "mark": {"type": "line", "color": "black", "point": True},
                                "encoding": {"x": x, "y": {"field": "ref", "type": "quantitative"}, "tooltip": tip},
                            },
                        ],
                    },
                    _text(
                        [
                            *grid,
                            {
                                "aggregate": [
                                    {"op": "sum", "field": "inside", "as": "covered"},
                                    {"op": "valid", "field": "inside", "as": "n_valid"},
                                    {"op": "count", "as": "n_grid"},
                                ]
                            },
                        ],
                        f"datum.n_valid > 0 ? '{title} coverage rate: ' + format(datum.covered / datum.n_grid, '.3f') "
                        "+ ' (' + datum.covered + ' of ' + datum.n_grid + ' grid points)' "
                        f": '{title} coverage rate: no band (no other selected member has curves)'",
                        data="effects",
                    ),
                ]
            }
        )
    note = (
        f"Curves exist for the members of {view.effects_scope} up to ε = {view.epsilon_max:g} "
        "(rule rashomon_effects); in another scope only those members are drawn."
    )
    return {"vconcat": [{"hconcat": panels}, _static_text(note)]}


def _rows_view(view: DatasetView, first_row: int) -> dict:
    classification = view.task == "classification"
    flip = "(datum.ref > 0.5) ? (datum.lo <= 0.5 ? 1 : 0) : (datum.hi > 0.5 ? 1 : 0)" if classification else "0"
    per_row = [
        *_unpack_predictions(),
        *_membership(),
        {"filter": "datum.selected"},
        {
            "aggregate": [
                {"op": "min", "field": "prediction", "as": "lo"},
                {"op": "max", "field": "prediction", "as": "hi"},
                {"op": "count", "as": "n"},
            ],
            "groupby": ["row"],
        },
        {"lookup": "row", "from": {"data": _data("rows"), "key": "row"}, "as": "info"},
        {"calculate": "datum.info['ref_' + scope]", "as": "ref"},
        {"calculate": "datum.info.prepared_row", "as": "prepared_row"},
        {"calculate": "datum.hi - datum.lo", "as": "range"},
        {"calculate": flip, "as": "ambiguous"},
        {
            "window": [{"op": "row_number", "as": "rank"}],
            "sort": [{"field": "ambiguous", "order": "descending"}, {"field": "range", "order": "descending"}],
        },
        {"filter": "datum.rank <= 25"},
    ]
    intervals = any(c.startswith("pi_lower_") for c in view.rows.columns)
    if intervals:  # the Rashomon prediction interval at the configured ε (rule prediction_intervals)
        at = per_row.index({"calculate": "datum.info.prepared_row", "as": "prepared_row"}) + 1
        per_row[at:at] = [
            {"calculate": "datum.info['pi_lower_' + scope]", "as": "pi_lo"},
            {"calculate": "datum.info['pi_upper_' + scope]", "as": "pi_hi"},
        ]
    what = "probability" if classification else "prediction"
    order = "ambiguity, then viable range" if classification else "viable prediction range"
    rows = {
        "data": _data("predictions"),
        "transform": per_row,
        "width": W,
        "height": {"step": 12},
        "title": f"Rows: the 25 test rows of widest {order} (click one)",
        "layer": [
            {
                "name": "rows_bars",
                "params": [
                    {"name": "pick", "select": {"type": "point", "fields": ["row"]}, "value": [{"row": int(first_row)}]}
                ],
                "mark": {"type": "rule", "strokeWidth": 6},
                "encoding": {
                    "y": {"field": "row", "type": "ordinal", "sort": {"field": "rank"}, "title": "test row"},
                    "x": {"field": "lo", "type": "quantitative", "title": f"members' {what}", "scale": {"zero": False}},
                    "x2": {"field": "hi"},
                    "color": (
                        {
                            "field": "ambiguous",
                            "type": "nominal",
                            "title": "a member changes the class",
                            "scale": {"domain": [0, 1], "range": ["#9ecae1", "#d62728"]},
                            "legend": {"labelExpr": "datum.label == '1' ? 'yes' : 'no'"},
                        }
                        if classification
                        else {"value": "#4c78a8"}
                    ),
                    "opacity": {"condition": {"param": "pick", "value": 1}, "value": 0.5},
                    "tooltip": [
                        {"field": "row"},
                        {"field": "prepared_row", "title": "row of prepared.csv"},
                        {"field": "lo", "format": ".4g"},
                        {"field": "ref", "format": ".4g", "title": "reference"},
                        {"field": "hi", "format": ".4g"},
                        {"field": "range", "format": ".4g"},
                        {"field": "n", "title": "members"},
                    ],
                },
            },
            {
                "mark": {"type": "tick", "color": "black", "thickness": 2},
                "encoding": {
                    "y": {"field": "row", "type": "ordinal", "sort": {"field": "rank"}},
                    "x": {"field": "ref", "type": "quantitative"},
                },
            },
        ],
    }
    if intervals:
        rows["layer"].insert(
            0,
            {
                "name": "rows_intervals",
                "mark": {"type": "rule", "strokeWidth": 2, "color": "#999999"},
                "encoding": {
                    "y": {"field": "row", "type": "ordinal", "sort": {"field": "rank"}},
                    "x": {"field": "pi_lo", "type": "quantitative"},
                    "x2": {"field": "pi_hi"},
                    "tooltip": [
                        {"field": "row"},
                        {"field": "pi_lo", "format": ".4g", "title": f"interval lower (ε = {view.epsilon:g})"},
                        {"field": "pi_hi", "format": ".4g", "title": f"interval upper (ε = {view.epsilon:g})"},
                    ],
                },
            },
        )
        rows["title"] = {
            "text": rows["title"],
            "subtitle": (
                f"grey: the Rashomon prediction interval at ε = {view.epsilon:g} (the scope's range "
                "widened by split conformal; docs/rashomon.md)"
            ),
        }
    detail, values = _row_detail(view, what), _row_values()
    # the ambiguity colours have a scale of their own; the families' domain is fixed (_family_color)
    return {"hconcat": [rows, {"vconcat": [detail, values]}], "resolve": {"scale": {"color": "independent"}}}


def _row_detail(view: DatasetView, what: str) -> dict:
    """Every selected member's prediction for the picked row."""
    return {
        "data": _data("predictions"),
        # the picked row's value of each member's packed line (no unpacking of every row)
        "transform": [
            *_membership(),
            {"filter": "datum.selected && isValid(pick.row)"},
            {"calculate": "toNumber(split(datum.values, ' ')[pick.row[0]])", "as": "prediction"},
        ],
        "name": "row_detail",
        "width": W,
        "height": H - 60,
        "title": "The picked row: every selected member's prediction",
        "mark": {"type": "point", "filled": True, "opacity": 0.8},
        "encoding": {
            "x": {"field": "prediction", "type": "quantitative", "title": what, "scale": {"zero": False}},
            "y": {"field": "family", "type": "nominal", "title": None},
            "color": _family_color(view),
            "shape": {"condition": {"test": "datum.is_ref", "value": "diamond"}, "value": "circle"},
            "tooltip": [{"field": "family"}, {"field": "config_id"}, {"field": "prediction", "format": ".5g"}],
        },
    }


def _row_values() -> dict:
    """The picked row's feature values (as prepared; ``missing`` where the table had none)."""
    return {
        "data": _data("values"),
        "transform": [
            {"filter": {"param": "pick", "empty": False}},
            {
                "calculate": "datum.feature + ' = ' + (isValid(datum.value) ? format(datum.value, '.5~g') : 'missing')",
                "as": "label",
            },
        ],
        "mark": {"type": "text", "align": "left", "fontSize": 11},
        "encoding": {
            "text": {"field": "label"},
            "y": {"field": "feature", "type": "nominal", "axis": None, "sort": None},
            "x": {"value": 0},
        },
        "width": 220,
        "height": {"step": 14},
        "title": "Its feature values",
    }
    # the ambiguity colours have a scale of their own; the families' domain is fixed (_family_color)


def _static_text(text: str) -> dict:
    return {
        "data": {"values": [{"label": text}]},
        "mark": {"type": "text", "align": "left", "fontSize": 11, "color": "#555"},
        "encoding": {"text": {"field": "label"}, "x": {"value": 0}, "y": {"value": 8}},
        "width": 2 * W,
        "height": 14,
    }


def _first_row(view: DatasetView) -> int:
    """The test row of widest viable range at the configured ε (the rows view's first pick)."""
    chosen = members_at(view.members, view.scope, view.epsilon)["member"]
    p = view.predictions[view.predictions["member"].isin(chosen)]
    rng = p.groupby("row")["prediction"].agg(lambda v: v.max() - v.min())
    return int(rng.idxmax()) if len(rng) else 0


def dataset_spec(view: DatasetView) -> dict:
    """The Vega-Lite specification of one dataset's explorer (a ``vconcat`` of the four views with
    the data embedded as CSV text in ``datasets``), validated against the Vega-Lite schema by Altair.

    Raises
    ------
    altair.utils.schemapi.SchemaValidationError
        The specification is not valid Vega-Lite.
    """
    import altair as alt

    sections = [_static_text(n) for n in view.notes]
    sections += [_set_view(view), _importance_view(view)]
    if not view.effects.empty:
        sections.append(_effects_view(view))
    sections.append(_rows_view(view, _first_row(view)))
    frames = {
        "members": compact_csv(view.members, exact=("gap_family", "gap_cross_family")),
        "reliance": compact_csv(view.reliance),
        "predictions": packed_predictions(view.predictions),
        "rows": compact_csv(view.rows),
        "values": compact_csv(view.values),
        **dict(zip(("effects", "grid"), packed_effects(view.effects))),
    }
    spec = {
        "$schema": alt.SCHEMA_URL,
        "title": {"text": f"{view.dataset}: Rashomon set", "anchor": "start", "fontSize": 16},
        "params": _params(view),
        "datasets": frames,
        "vconcat": sections,
        "spacing": 28,
        "config": {"view": {"stroke": None}, "legend": {"orient": "right"}},
    }
    alt.VConcatChart.from_dict({k: v for k, v in spec.items() if k != "datasets"} | {"datasets": {}}, validate=True)
    return spec
