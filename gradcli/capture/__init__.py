"""The run mode: a script run by its own framework, captured as a framework-neutral program.

`program` is the captured data (operations, values, gradient calls); `diagnosis` reads it
and speaks explain's vocabulary; `script` runs a user's file as Python would; the
framework edges (`torch_capture`, ...) are the only modules that import a framework, and
only under `--run`.
"""
