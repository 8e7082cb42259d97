"""The words and JSON of gradient elements decided by a convention (core/convention_sites.py)."""

from __future__ import annotations

from gradcli.views.format import number, short_number

MARKER = "†"  # after a gradient decided in part by a convention; the footnote says where
SHOWN = 3  # elements named in a footnote; the others are counted


def _side(v) -> str:
    return "none" if v is None else short_number(v)


def one_sided(site, k: int) -> str:
    """'the one-sided derivatives are 0 and 1', or what exists of them."""
    below, above = site.below[k], site.above[k]
    if below is None and above is None:
        return "no one-sided derivative of the op itself"
    if below is None:
        return f"only the derivative from above exists ({_side(above)})"
    if above is None:
        return f"only the derivative from below exists ({_side(below)})"
    return f"the one-sided derivatives are {_side(below)} and {_side(above)}"


def where(site) -> str:
    """'in h, line 3', or 'inside mean_absolute_error in h, line 3': where the node is."""
    parts = [] if site.inside is None else [f"inside {site.inside}"]
    if site.entry:
        parts.append(f"in {site.entry}")
    text = " ".join(parts)
    if site.line is not None:
        text = f"{text}, line {site.line}" if text else f"on line {site.line}"
    return text


def sentence(site) -> str:
    """One footnote line: which elements, the point, TensorFlow's value, the sides, the others."""
    shown = ", ".join(
        f"{site.label(k)} = {number(site.values[k])}" for k in range(min(SHOWN, len(site.elements)))
    )
    more = site.count - min(SHOWN, len(site.elements))
    if more > 0:
        shown += f" and {more} more"
    c = site.convention
    return (
        f"{shown} {'is' if site.count == 1 else 'are'} at {c.point} {where(site)}: "
        f"{c.tensorflow}; {one_sided(site, 0)}; {c.pytorch}; {c.jax}"
    )


def footnotes(sites_by_name: dict) -> list[str]:
    """'† d/dx: ...' lines, one per site, in gradient order."""
    lines = []
    for name, sites in sites_by_name.items():
        for site in sites:
            lines.append(f"{MARKER} {name}: {sentence(site)}")
    return lines


def document(sites) -> list[dict]:
    """A gradient's `conventions` list for JSON."""
    out = []
    for site in sites:
        c = site.convention
        out.append(
            {
                "op": site.op,
                "inside": site.inside,
                "node": site.entry,
                "line": site.line,
                "of": site.of,
                "kind": c.kind.value,
                "count": site.count,
                "elements": [list(e) for e in site.elements],
                "values": [_json(v) for v in site.values],
                "one_sided": [[_json(b), _json(a)] for b, a in zip(site.below, site.above)],
                "point": c.point,
                "tensorflow": c.tensorflow,
                "pytorch": c.pytorch,
                "jax": c.jax,
            }
        )
    return out


def _json(v):
    if v is None:
        return None
    f = float(v)
    if f != f:
        return "nan"
    if f in (float("inf"), float("-inf")):
        return "inf" if f > 0 else "-inf"
    return f
