"""Generated benchmark specs: the scalar chain, the MLP, the elementwise loss, a 20-node point spec.

Every spec is written to a temporary directory by run.py; the hand-written floors in
floors.py compute exactly the same functions.
"""

from __future__ import annotations

import math

# One op per line, cycling sin, multiply, subtract. The multiplier is 1/cos(0.5) and the
# offset make x = 0.5 a fixed point where the derivative of one cycle is exactly 1; from
# x0 = 0.6 the chain creeps down past it (the map is concave, tangent to y = x there):
# the gradient neither underflows nor overflows over 100,000 nodes.
CHAIN_K = 1.0 / math.cos(0.5)
CHAIN_C = CHAIN_K * math.sin(0.5) - 0.5
CHAIN_X0 = 0.6


def chain_ops(n: int) -> list[tuple[str, float]]:
    """The chain as (op, constant) steps: ("sin", 0), ("mul", K), ("sub", C), ..."""
    cycle = (("sin", 0.0), ("mul", CHAIN_K), ("sub", CHAIN_C))
    return [cycle[i % 3] for i in range(n)]


def chain_spec(n: int) -> str:
    """A spec of n graph entries, one op each: x_i = sin(x_{i-1}) or x_{i-1} * K or - C."""
    lines = ["inputs:", f"  x0: {CHAIN_X0!r}", "graph:"]
    for i, (op, c) in enumerate(chain_ops(n), start=1):
        prev = f"x{i - 1}"
        if op == "sin":
            lines.append(f"  x{i}: sin({prev})")
        elif op == "mul":
            lines.append(f"  x{i}: {prev} * {c!r}")
        else:
            lines.append(f"  x{i}: {prev} - {c!r}")
    lines.append(f"wrt: [x0]\noutputs: [x{n}]")
    return "\n".join(lines) + "\n"


MLP_SIZES = (784, 1024, 1024, 10)
# the Hessian benchmark's MLP: 20*32 + 32 + 32*10 + 10 + 10*2 + 2 = 1,024 parameters
HESSIAN_SIZES = (20, 32, 10, 2)
HESSIAN_BATCH = 8
MLP_BATCH = 512


def mlp_spec(dtype: str, batch: int = MLP_BATCH, sizes=MLP_SIZES) -> str:
    """relu MLP with a squared-error loss summed over the batch and divided by its size."""
    d0, d1, d2, d3 = sizes
    scale = (2.0 / d0) ** 0.5

    def rnd(shape, seed, std=1.0):
        return (
            f"{{random: normal, shape: {list(shape)}, seed: {seed}, std: {std!r}, dtype: {dtype}}}"
        )

    return f"""inputs:
  x: {{random: normal, shape: [{batch}, {d0}], seed: 1, dtype: {dtype}, trainable: false}}
  y: {{random: normal, shape: [{batch}, {d3}], seed: 2, dtype: {dtype}, trainable: false}}
  w1: {rnd((d0, d1), 3, scale)}
  b1: {{zeros: [{d1}], dtype: {dtype}}}
  w2: {rnd((d1, d2), 4, (2.0 / d1) ** 0.5)}
  b2: {{zeros: [{d2}], dtype: {dtype}}}
  w3: {rnd((d2, d3), 5, (2.0 / d2) ** 0.5)}
  b3: {{zeros: [{d3}], dtype: {dtype}}}
graph:
  h1: relu(x @ w1 + b1)
  h2: relu(h1 @ w2 + b2)
  out: h2 @ w3 + b3
  loss: sum(square(out - y)) / {batch}
wrt: [w1, b1, w2, b2, w3, b3]
"""


def elementwise_spec(n: int) -> str:
    """loss = sum(tanh(x) * x + exp(-x * x)) over n float64 values."""
    return f"""inputs:
  x: {{random: normal, shape: [{n}], seed: 0}}
graph:
  loss: sum(tanh(x) * x + exp(-x * x))
"""


# A 20-node scalar function of three inputs for the batch (--points) benchmark.
POINTS_EXPR = (
    "sin(a) * b + exp(-a * a) * c + tanh(b * c) - log1p(a * a) * sqrt(b * b + 1) + c / (1 + b * b)"
)


def points_spec() -> str:
    return f"""inputs:
  a: 0.5
  b: 1.5
  c: -0.5
graph:
  f: {POINTS_EXPR}
"""


def points_file(path: str, n: int, fmt: str = "jsonl") -> None:
    """n points with a reproducible pattern, written as JSON Lines or CSV."""
    with open(path, "w") as fh:
        if fmt == "csv":
            fh.write("a,b,c\n")
        for i in range(n):
            a, b, c = (i % 1000) / 500.0 - 1.0, (i % 777) / 300.0, (i % 313) / 100.0 - 1.5
            if fmt == "csv":
                fh.write(f"{a!r},{b!r},{c!r}\n")
            else:
                fh.write(f'{{"a": {a!r}, "b": {b!r}, "c": {c!r}}}\n')


# The TensorFlow reader's parse-cost workload: a training step as a user writes it (an MLP as
# explicit tf.Variables, helpers, loops, a tape), and the spec computing the same gradient.
TF_SIZES = (64, 128, 128, 10)
TF_BATCH = 256
TF_DECAY = 1e-4


def tf_train_step(sizes=TF_SIZES, batch: int = TF_BATCH) -> str:
    """A ~200-line TensorFlow training-step program (gradcli reads it, never runs it)."""
    return (
        TF_PROGRAM.replace("@SIZES@", repr(list(sizes)))
        .replace("@BATCH@", str(batch))
        .replace("@DECAY@", repr(TF_DECAY))
    )


def tf_equivalent_spec(sizes=TF_SIZES, batch: int = TF_BATCH) -> str:
    """The spec of the program's gradient: the same MLP, loss and penalty, float32."""
    n = len(sizes) - 1
    lines = [
        "inputs:",
        f"  x: {{random: normal, shape: [{batch}, {sizes[0]}], seed: 1, dtype: float32, "
        "trainable: false}",
        f"  y: {{random: normal, shape: [{batch}, {sizes[-1]}], seed: 2, dtype: float32, "
        "trainable: false}",
    ]
    for i in range(n):
        std = (2.0 / (sizes[i] + sizes[i + 1])) ** 0.5
        lines.append(
            f"  w{i}: {{random: normal, shape: [{sizes[i]}, {sizes[i + 1]}], seed: {i + 3}, "
            f"std: {std!r}, dtype: float32}}"
        )
        lines.append(f"  b{i}: {{zeros: [{sizes[i + 1]}], dtype: float32}}")
    lines.append("graph:")
    h = "x"
    for i in range(n):
        z = f"{h} @ w{i} + b{i}"
        lines.append(f"  h{i}: {z if i == n - 1 else f'relu({z})'}")
        h = f"h{i}"
    penalty = " + ".join(f"sum(w{i} ** 2)" for i in range(n))
    lines.append(f"  loss: mean(square({h} - y)) + {TF_DECAY!r} * ({penalty})")
    lines.append("wrt: [" + ", ".join(f"w{i}, b{i}" for i in range(n)) + "]")
    return "\n".join(lines) + "\n"


TF_PROGRAM = '''"""Train a small multi-layer perceptron on synthetic data: one training step.

The model is written with explicit tf.Variables (no Keras) so that every parameter, every
layer and the whole loss are visible in this file. The step computes the mean squared error
of the network's predictions plus an L2 penalty on the weights, takes the gradient with a
GradientTape, and applies plain SGD updates to the variables.
"""

import numpy as np
import tensorflow as tf

# --- configuration -------------------------------------------------------------------------
SIZES = @SIZES@  # input, hidden, hidden, output
BATCH = @BATCH@
LEARNING_RATE = 0.05
WEIGHT_DECAY = @DECAY@
SEED = 0
STEP = 20  # the step this one is, for the learning-rate schedule
CLIP = 1.0
VERBOSE = True

tf.random.set_seed(SEED)
np.random.seed(SEED)


# --- data ----------------------------------------------------------------------------------
def pattern(shape, rate):
    """A reproducible array in [-1, 1] (sin of its flat index): the same on every machine."""
    count = 1
    for d in shape:
        count *= d
    return tf.reshape(tf.sin(tf.range(count, dtype=tf.float32) * rate), shape)


def make_batch(batch, n_in, n_out):
    """A synthetic batch of inputs and regression targets."""
    inputs = pattern((batch, n_in), 0.37)
    targets = pattern((batch, n_out), 0.11)
    return inputs, targets


def standardize(t, eps=1e-6):
    """Zero mean and unit variance per feature (computed on the batch itself)."""
    mean = tf.reduce_mean(t, axis=0)
    centered = t - mean
    var = tf.reduce_mean(centered * centered, axis=0)
    return centered / tf.sqrt(var + eps)


# --- parameters ----------------------------------------------------------------------------
def glorot(n_in, n_out):
    """Glorot-scaled initial weights for a dense layer (a fixed pattern, not a draw)."""
    scale = (2.0 / (n_in + n_out)) ** 0.5
    return tf.Variable(pattern((n_in, n_out), 0.73 + n_in / 1000.0) * scale)


def zeros(n):
    """A zero bias."""
    return tf.Variable(tf.zeros((n,)))


def init_params(sizes):
    """One (weights, bias) pair per layer."""
    params = []
    for i in range(len(sizes) - 1):
        w = glorot(sizes[i], sizes[i + 1])
        b = zeros(sizes[i + 1])
        params.append((w, b))
    return params


def count_params(params):
    """How many numbers the model holds."""
    total = 0
    for w, b in params:
        total += w.shape[0] * w.shape[1] + b.shape[0]
    return total


# --- model ---------------------------------------------------------------------------------
def dense(x, w, b, activation=None):
    """x @ w + b, then the activation if there is one."""
    y = tf.matmul(x, w) + b
    if activation is not None:
        y = activation(y)
    return y


def forward(params, x):
    """The network: relu hidden layers, a linear output layer."""
    h = x
    last = len(params) - 1
    for i, (w, b) in enumerate(params):
        act = None if i == last else tf.nn.relu
        h = dense(h, w, b, activation=act)
    return h


# --- losses and metrics --------------------------------------------------------------------
def mse(pred, target):
    """Mean squared error over the batch and the outputs."""
    err = pred - target
    return tf.reduce_mean(tf.square(err))


def l2_penalty(params):
    """The sum of the squared weights (biases are not penalized)."""
    return tf.add_n([tf.reduce_sum(w**2) for w, _ in params])


def objective(params, x, y):
    """The training loss: the error plus the weight penalty."""
    return mse(forward(params, x), y) + WEIGHT_DECAY * l2_penalty(params)


def mean_abs_error(params, x, y):
    """A metric computed outside the tape: no gradient needed."""
    pred = forward(params, x)
    return tf.reduce_mean(tf.abs(pred - y))


def agreement(params, x, y):
    """How often the largest output is where the largest target is."""
    pred = forward(params, x)
    hits = tf.cast(tf.equal(tf.argmax(pred, axis=1), tf.argmax(y, axis=1)), tf.float32)
    return tf.reduce_mean(hits)


# --- training ------------------------------------------------------------------------------
def flatten(params):
    """The variables in a flat list, in the order the gradient is asked for."""
    return [v for pair in params for v in pair]


def sgd(variables, grads, lr):
    """Plain gradient descent, skipping variables without a gradient."""
    for v, g in zip(variables, grads):
        if g is not None:
            v.assign_sub(lr * g)


def global_norm(grads):
    """The norm of all gradients together (for logging)."""
    squares = [tf.reduce_sum(g * g) for g in grads if g is not None]
    return tf.sqrt(sum(squares))


def schedule(step, base=LEARNING_RATE, warmup=10):
    """The learning rate: a linear warm-up over the first steps, then constant."""
    if step < warmup:
        return base * (step + 1) / warmup
    return base


def clip(grads, limit=CLIP):
    """Each gradient's elements clipped to [-limit, limit] (None stays None)."""
    return [None if g is None else tf.clip_by_value(g, -limit, limit) for g in grads]


def train_step(params, x, y, step):
    """One step: loss, gradient, update. Returns the loss and the gradients' norm."""
    variables = flatten(params)
    with tf.GradientTape() as tape:
        loss = objective(params, x, y)
    grads = tape.gradient(loss, variables)
    norm = global_norm(grads)
    sgd(variables, clip(grads), schedule(step))
    return loss, norm


def describe(params):
    """A one-line summary of the layers' shapes."""
    shapes = []
    for w, b in params:
        shapes.append(f"{w.shape[0]}x{w.shape[1]}")
    return " -> ".join(shapes)


# --- main ----------------------------------------------------------------------------------
x_raw, y = make_batch(BATCH, SIZES[0], SIZES[-1])
x = standardize(x_raw)
params = init_params(SIZES)

if VERBOSE:
    print(f"model: {describe(params)}, {count_params(params)} parameters")

before = mean_abs_error(params, x, y)
loss, norm = train_step(params, x, y, STEP)
after = mean_abs_error(params, x, y)
hits = agreement(params, x, y)
summary = {
    "loss": float(loss),
    "grad_norm": float(norm),
    "mae_before": float(before),
    "mae_after": float(after),
    "agreement": float(hits),
}

if VERBOSE:
    for key in ["loss", "grad_norm", "mae_before", "mae_after", "agreement"]:
        print(f"{key:>12}: {summary[key]:.4f}")
    improved = summary["mae_after"] < summary["mae_before"]
    print("the step improved the fit" if improved else "the step did not improve the fit")
'''

# Contractions: each array is a spec input {random: normal, shape, seed} (numpy's
# default_rng(seed).normal, which the floors regenerate) or, for gather's ids, a literal.
CONTRACTION_EXPR = {
    "einsum": "sum(einsum('bij,bjk->bik', a, c) * w)",
    "gather": "sum(gather(p, ids) * w)",
}


def contraction_shapes(kind: str, size: dict) -> dict[str, tuple[int, ...]]:
    """The float inputs of a contraction benchmark and their shapes (seeds 1, 2, 3 in order)."""
    if kind == "einsum":
        b, n = size["batch"], size["n"]
        return {"a": (b, n, n), "c": (b, n, n), "w": (b, n, n)}
    return {"p": (size["vocab"], size["dim"]), "w": (size["lookups"], size["dim"])}


def contraction_ids(size: dict) -> list[int]:
    """gather's indices: repeated on purpose (their gradients add), seeded."""
    import numpy as np

    rng = np.random.default_rng(4)
    return rng.integers(0, size["vocab"], size=size["lookups"]).tolist()


def contraction_spec(kind: str, size: dict) -> str:
    """loss = sum(einsum(...) * w) or sum(gather(p, ids) * w); w is a constant."""
    lines = ["inputs:"]
    for seed, (name, shape) in enumerate(contraction_shapes(kind, size).items(), start=1):
        trainable = "false" if name == "w" else "true"
        lines.append(
            f"  {name}: {{random: normal, shape: {list(shape)}, seed: {seed}, "
            f"trainable: {trainable}}}"
        )
    if kind == "gather":
        lines.append(f"  ids: {{value: {contraction_ids(size)}, dtype: int32}}")
    lines += ["graph:", f"  loss: {CONTRACTION_EXPR[kind]}"]
    return "\n".join(lines) + "\n"


# tensordot over two axes that need a transpose on both sides (a's 0 and 2, b's 2 and 0):
# (64, 12288) @ (12288, 80) once reshaped, as TensorFlow (and np.tensordot) compute it
TENSORDOT_A = (128, 64, 96)
TENSORDOT_B = (96, 80, 128)
TENSORDOT_AXES = ([0, 2], [2, 0])


def tensordot_spec(a_shape=TENSORDOT_A, b_shape=TENSORDOT_B, axes=TENSORDOT_AXES) -> str:
    """c = tensordot(a, b, axes) of two random tensors (seeds 1 and 2)."""
    return f"""inputs:
  a: {{random: normal, shape: {list(a_shape)}, seed: 1}}
  b: {{random: normal, shape: {list(b_shape)}, seed: 2}}
graph:
  c: tensordot(a, b, {[list(axes[0]), list(axes[1])]})
"""


# conv2d: a batch of 16 images 32x32 with 64 channels by 3x3 filters to 64 channels, SAME
CONV_X = (16, 32, 32, 64)
CONV_K = (3, 3, 64, 64)


def conv_spec(x_shape=CONV_X, k_shape=CONV_K) -> str:
    """loss = sum(conv2d(x, k, 1, 'SAME') * w): x and k random (seeds 1, 2), w a constant."""
    out = (*x_shape[:3], k_shape[3])
    return f"""inputs:
  x: {{random: normal, shape: {list(x_shape)}, seed: 1}}
  k: {{random: normal, shape: {list(k_shape)}, seed: 2}}
  w: {{random: normal, shape: {list(out)}, seed: 3, trainable: false}}
graph:
  loss: sum(conv2d(x, k, 1, 'SAME') * w)
"""


# --- expression shapes: chains whose entries are not the one-op lines above ----------------
# Each graph entry (or the one expression of "sum") is written the way people write them;
# floors.shape_records builds the same arithmetic as tape records directly.
SHAPE_X = 0.3
SHAPES = ("unary-binary", "two-argument calls", "nested parentheses", "sum of terms")


def shape_entry(shape: str, i: int) -> str:
    """Entry y{i} of a chain shape (y0 is an input)."""
    y = f"y{i - 1}"
    if shape == "unary-binary":
        return f"sin({y}) * 0.9 + 0.1 * x"
    if shape == "two-argument calls":
        return f"maximum({y} * 0.9, 0.5 * x) + 0.01"
    if shape == "nested parentheses":
        return f"(({y} * 0.9) + ((0.1 * x) - 0.01))"
    raise ValueError(shape)


def shape_spec(shape: str, n: int) -> str:
    """A spec of the shape: n chain entries, or one expression of n terms (sum of terms)."""
    lines = ["inputs:", f"  x: {SHAPE_X!r}", "  y0: 0.5", "graph:"]
    if shape == "sum of terms":
        terms = " + ".join(f"{(k % 7 + 1) / 8!r} * sin(x * {k % 5 + 1})" for k in range(n))
        lines.append(f"  f: {terms}")
        lines.append("wrt: [x]\noutputs: [f]")
    else:
        lines += [f"  y{i}: {shape_entry(shape, i)}" for i in range(1, n + 1)]
        lines.append(f"wrt: [x]\noutputs: [y{n}]")
    return "\n".join(lines) + "\n"
