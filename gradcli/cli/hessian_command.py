"""gradcli hessian: second derivatives of a scalar output, as table, plain or JSON."""

from __future__ import annotations

import click

from gradcli.cli.options import CALL, LANG, SAVE, TABLE_JSON_PLAIN, WEIGHTS, epilog, spec_options


@click.command("hessian", epilog=epilog("hessian"))
@spec_options
@TABLE_JSON_PLAIN
@SAVE
@LANG
@CALL
@WEIGHTS
def hessian_command(spec, expr, at, wrt, unconnected, fmt, save, lang, call, weights):
    """The Hessian of a scalar output: one block per pair of targets."""
    from gradcli.cli.derivative_blocks import run_blocks

    return run_blocks("hessian", spec, expr, at, wrt, unconnected, fmt, save, lang, call, weights)
