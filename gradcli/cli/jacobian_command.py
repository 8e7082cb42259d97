"""gradcli jacobian: d output/d input for every output and target, as table, plain or JSON."""

from __future__ import annotations

import click

from gradcli.cli.options import CALL, LANG, SAVE, TABLE_JSON_PLAIN, WEIGHTS, epilog, spec_options


@click.command("jacobian", epilog=epilog("jacobian"))
@spec_options
@TABLE_JSON_PLAIN
@SAVE
@LANG
@CALL
@WEIGHTS
def jacobian_command(spec, expr, at, wrt, unconnected, fmt, save, lang, call, weights):
    """The Jacobian of every output w.r.t. every target: shape(output) + shape(input)."""
    from gradcli.cli.derivative_blocks import run_blocks

    return run_blocks("jacobian", spec, expr, at, wrt, unconnected, fmt, save, lang, call, weights)
