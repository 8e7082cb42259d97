"""Keras's metric classes (keras.metrics.Accuracy(), AUC(), ...): read and ignored. A metric
never takes part in a gradient (Keras updates it after the train step's tape); its object is
made, and update_state/result/reset_state return nothing gradcli uses. Strings in
compile(metrics=[...]) are ignored as well; keras.metrics' loss functions (mean_squared_error,
...) are the keras.losses functions (loss_functions.py)."""

from __future__ import annotations

from gradcli.tfcode.keras.objects import Builtin, Class


def _ignored(it, obj, args, kwargs, node):
    return None


IGNORED = ("__init__", "__call__", "update_state", "result", "reset_state", "reset_states")
METRIC = Class("Metric", kind="metric", methods={name: Builtin(_ignored) for name in IGNORED})
METRIC_NAMES = (
    "AUC", "Accuracy", "BinaryAccuracy", "BinaryCrossentropy", "BinaryIoU", "CategoricalAccuracy",
    "CategoricalCrossentropy", "CategoricalHinge", "ConcordanceCorrelation", "CosineSimilarity",
    "F1Score", "FBetaScore", "FalseNegatives", "FalsePositives", "Hinge", "IoU", "KLDivergence",
    "LogCoshError", "Mean", "MeanAbsoluteError", "MeanAbsolutePercentageError", "MeanIoU",
    "MeanMetricWrapper", "MeanSquaredError", "MeanSquaredLogarithmicError", "OneHotIoU",
    "OneHotMeanIoU", "PearsonCorrelation", "Poisson", "Precision", "PrecisionAtRecall",
    "R2Score", "Recall", "RecallAtPrecision", "RootMeanSquaredError",
    "SensitivityAtSpecificity", "SparseCategoricalAccuracy", "SparseCategoricalCrossentropy",
    "SparseTopKCategoricalAccuracy", "SpecificityAtSensitivity", "SquaredHinge", "Sum",
    "TopKCategoricalAccuracy", "TrueNegatives", "TruePositives",
)  # fmt: skip
METRIC_CLASSES = {"Metric": METRIC, **{n: Class(n, (METRIC,)) for n in METRIC_NAMES}}
