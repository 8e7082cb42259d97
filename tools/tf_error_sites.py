"""Snippets for tools/record_tf_errors.py: one per place the static reader reports TensorFlow's
(or Python's, Keras's) error, so that each such place is backed by a recorded TensorFlow run."""

K = "import keras\n\n"
SEQ = "m = tf.keras.Sequential([tf.keras.layers.Dense(1)])\n"

SITE_SNIPPETS = {
    "k_switch_rank": (
        "y = tf.keras.backend.switch(tf.ones((2, 2)) > 0, tf.ones(2), tf.zeros(2))\n"
    ),
    "clip_by_global_norm_not_list": "c = tf.clip_by_global_norm(tf.ones(2), 1.0)\n",
    "dataset_padded_batch_smaller": (
        "ds = tf.data.Dataset.from_tensor_slices([[1.0, 2.0]]).padded_batch(1, padded_shapes=[1])\n"
        "x = next(iter(ds))\n"
    ),
    "dataset_get_single_element_two": (
        "ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0])\nx = ds.get_single_element()\n"
    ),
    "dataset_next_on_dataset": (
        "ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0])\nx = next(ds)\n"
    ),
    "dataset_batch_ragged": (
        "ds = tf.data.Dataset.from_generator(lambda: iter([[1.0], [1.0, 2.0]]), "
        "output_signature=tf.TensorSpec([None]))\n"
    ),
    "dataset_unbatch_scalar": ("ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).unbatch()\n"),
    "dataset_shuffle_no_size": ("ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).shuffle()\n"),
    "dataset_filter_not_bool": (
        "ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).filter(lambda x: x)\n"
    ),
    "dataset_batch_too_many": (
        "ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).batch(1, False, None, True, None, 1)\n"
    ),
    "dataset_from_slices_scalar": "ds = tf.data.Dataset.from_tensor_slices(1.0)\n",
    "dataset_len_unknown": (
        "ds = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).filter(lambda x: x > 1.0)\n"
        "n = len(ds)\n"
    ),
    "dataset_range_float": "ds = tf.data.Dataset.range(1.5)\n",
    "dataset_next_exhausted": (
        "it = iter(tf.data.Dataset.from_tensor_slices([1.0]))\na = next(it)\nb = next(it)\n"
    ),
    "np_index_out_of_bounds": "a = np.ones(2)\nb = a[np.array([5])]\n",
    "random_uniform_int_no_maxval": "x = tf.random.uniform([2], dtype=tf.int32)\n",
    "random_uniform_int_float_maxval": ("x = tf.random.uniform([2], maxval=2.5, dtype=tf.int32)\n"),
    "random_uniform_int_empty_range": (
        "x = tf.random.uniform([2], minval=3, maxval=1, dtype=tf.int32)\n"
    ),
    "random_normal_too_many": "x = tf.random.normal([2], 0.0, 1.0, tf.float32, None, 'n', 1)\n",
    "tensorarray_read_unwritten_past": (
        "ta = tf.TensorArray(tf.float32, size=1)\nx = ta.read(3)\n"
    ),
    "tensorarray_write_wrong_dtype": (
        "ta = tf.TensorArray(tf.float32, size=1)\nta = ta.write(0, tf.constant(1))\n"
    ),
    "tensorarray_concat_scalars": (
        "ta = tf.TensorArray(tf.float32, size=1)\nta = ta.write(0, 1.0)\nc = ta.concat()\n"
    ),
    "tensorarray_unstack_too_many": (
        "ta = tf.TensorArray(tf.float32, size=1)\nta = ta.unstack(tf.ones(3))\n"
    ),
    "tensor_method_not_there": "x = tf.constant(1.0)\ny = x.foo()\n",
    "tensor_assign_item": "x = tf.constant([1.0, 2.0])\nx[0] = 3.0\n",
    "zeros_positional_keyword_only": "x = tf.keras.ops.zeros((2,), 'float32')\n",
    "v1_get_variable_twice": (
        "tf.compat.v1.disable_eager_execution()\n"
        "a = tf.compat.v1.get_variable('w', shape=[1])\n"
        "b = tf.compat.v1.get_variable('w', shape=[1])\n"
    ),
    "scatter_update_out_of_range": (
        "v = tf.Variable([1.0, 2.0])\nv.scatter_nd_update([[5]], [1.0])\n"
    ),
    "v1_layers_dense": "y = tf.compat.v1.layers.dense(tf.ones((1, 2)), 1)\n",
    "v1_minimize_no_variables": (
        "tf.compat.v1.disable_eager_execution()\nx = tf.constant(1.0)\n"
        "op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(x * x)\n"
    ),
    "v1_minimize_integer_loss": (
        "tf.compat.v1.disable_eager_execution()\n"
        "w = tf.compat.v1.get_variable('w', initializer=1)\n"
        "op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(w * w)\n"
    ),
    "v1_minimize_no_gradients": (
        "tf.compat.v1.disable_eager_execution()\nw = tf.compat.v1.get_variable('w', shape=[])\n"
        "x = tf.compat.v1.get_variable('x', shape=[])\n"
        "op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(x * x, var_list=[w])\n"
    ),
    "v1_global_step_twice": (
        "tf.compat.v1.disable_eager_execution()\na = tf.compat.v1.train.create_global_step()\n"
        "b = tf.compat.v1.train.create_global_step()\n"
    ),
    "v1_losses_none_labels": "l = tf.compat.v1.losses.mean_squared_error(None, tf.ones(2))\n",
    "keras_backend_mean": "y = tf.keras.backend.mean(tf.ones(2))\n",
    "keras_losses_reduction_bad": ("l = tf.keras.losses.MeanSquaredError(reduction='avg')\n"),
    "keras_losses_module_missing": "f = tf.keras.losses.Reduction\n",
    "tensor_keras_mask": "x = tf.constant(1.0)\nm = x._keras_mask\n",
    "keras_layers_leaky_relu_negative": "l = tf.keras.layers.LeakyReLU(negative_slope=-1.0)\n",
    "keras_thresholded_relu_none": "l = tf.keras.layers.ThresholdedReLU(theta=None)\n",
    "keras_dropout_rate_bad": "l = tf.keras.layers.Dropout(1.5)\n",
    "keras_conv_groups_zero": "l = tf.keras.layers.Conv2D(4, 3, groups=0)\n",
    "keras_conv_groups_filters": "l = tf.keras.layers.Conv2D(3, 3, groups=2)\n",
    "keras_conv_groups_channels": (
        "l = tf.keras.layers.Conv2D(4, 3, groups=2)\ny = l(tf.ones((1, 5, 5, 3)))\n"
    ),
    "keras_maxpool_no_size": "l = tf.keras.layers.MaxPooling2D()\n",
    "keras_conv_transpose_output_padding": (
        "l = tf.keras.layers.Conv2DTranspose(2, 3, strides=1, output_padding=1)\n"
    ),
    "keras_depthwise_multiplier_zero": (
        "l = tf.keras.layers.DepthwiseConv2D(3, depth_multiplier=0)\n"
    ),
    "keras_separable_filters_zero": "l = tf.keras.layers.SeparableConv2D(0, 3)\n",
    "keras_embedding_out_of_range": (
        "l = tf.keras.layers.Embedding(3, 2)\ny = l(tf.constant([5]))\n"
    ),
    "keras_add_one_input": "y = tf.keras.layers.Add()(tf.ones((1, 2)))\n",
    "keras_subtract_three": (
        "y = tf.keras.layers.Subtract()([tf.ones((1, 2)), tf.ones((1, 2)), tf.ones((1, 2))])\n"
    ),
    "keras_set_weights_count": (
        "l = tf.keras.layers.Dense(1)\nl.build((None, 2))\nl.set_weights([np.ones((2, 1))])\n"
    ),
    "keras_set_weights_shape": (
        "l = tf.keras.layers.Dense(1)\nl.build((None, 2))\n"
        "l.set_weights([np.ones((3, 1)), np.ones(1)])\n"
    ),
    "keras_dot_no_axes": "l = tf.keras.layers.Dot()\n",
    "keras_dot_axes_str": "l = tf.keras.layers.Dot(axes='a')\n",
    "keras_dot_axes_three": "l = tf.keras.layers.Dot(axes=[1, 1, 1])\n",
    "keras_dot_axes_float": "l = tf.keras.layers.Dot(axes=[1.0, 1.0])\n",
    "keras_dot_axis_zero": (
        "y = tf.keras.layers.Dot(axes=0)([tf.ones((2, 3)), tf.ones((2, 3))])\n"
    ),
    "keras_dot_incompatible": (
        "y = tf.keras.layers.Dot(axes=1)([tf.ones((2, 3)), tf.ones((2, 4))])\n"
    ),
    "keras_dot_one_input": "y = tf.keras.layers.Dot(axes=1)([tf.ones((2, 3))])\n",
    "keras_dot_rank_one": "y = tf.keras.layers.Dot(axes=0)([tf.ones(3), tf.ones(3)])\n",
    "keras_add_function_no_inputs": "y = tf.keras.layers.add()\n",
    "keras_gaussian_noise_no_stddev": "l = tf.keras.layers.GaussianNoise()\n",
    "keras_gaussian_dropout_bad": "l = tf.keras.layers.GaussianDropout(1.5)\n",
    "keras_rescaling_no_scale": "l = tf.keras.layers.Rescaling()\n",
    "keras_normalization_mean_only": "l = tf.keras.layers.Normalization(mean=1.0)\n",
    "keras_normalization_shapes": (
        "l = tf.keras.layers.Normalization(mean=[1.0, 2.0], variance=[1.0])\n"
    ),
    "keras_normalization_rank": (
        "l = tf.keras.layers.Normalization(mean=[[1.0]], variance=[[1.0]])\n"
    ),
    "keras_normalization_axis": (
        "l = tf.keras.layers.Normalization(axis=3)\nl.adapt(tf.ones((2, 2)))\n"
    ),
    "keras_regularizer_bad": "l = tf.keras.layers.Dense(1, kernel_regularizer='l3')\n",
    "keras_rnn_cell_no_call": "l = tf.keras.layers.RNN(3)\n",
    "keras_zero_padding_bad": "l = tf.keras.layers.ZeroPadding2D(padding=(1, 2, 3))\n",
    "keras_zero_padding_negative": "l = tf.keras.layers.ZeroPadding1D(padding=-1)\n",
    "keras_cropping_bad": "l = tf.keras.layers.Cropping2D(cropping=(1, 2, 3))\n",
    "keras_upsampling_bad_size": "l = tf.keras.layers.UpSampling2D(size=(0, 2))\n",
    "keras_upsampling_size_tuple": "l = tf.keras.layers.UpSampling2D(size=(2, 2, 2))\n",
    "keras_data_format_bad": "l = tf.keras.layers.Flatten(data_format='x')\n",
    "keras_flatten_rank": "l = tf.keras.layers.Conv1D(1, 1)\ny = l(tf.ones((2,)))\n",
    "keras_permute_bad": "l = tf.keras.layers.Permute((0, 1))\n",
    "keras_repeat_vector_float": "l = tf.keras.layers.RepeatVector(2.0)\n",
    "keras_repeat_vector_zero": "l = tf.keras.layers.RepeatVector(0)\n",
    "keras_upsampling1d_float": "l = tf.keras.layers.UpSampling1D(size=2.0)\n",
    "keras_upsampling1d_zero": "l = tf.keras.layers.UpSampling1D(size=0)\n",
    "keras_cropping_too_much": (
        "y = tf.keras.layers.Cropping1D(cropping=(2, 2))(tf.ones((1, 3, 1)))\n"
    ),
    "keras_time_distributed_not_layer": "l = tf.keras.layers.TimeDistributed(3)\n",
    "keras_time_distributed_rank": (
        "y = tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(1))(tf.ones((2, 3)))\n"
    ),
    "keras_bidirectional_not_layer": "l = tf.keras.layers.Bidirectional(3)\n",
    "keras_bidirectional_backward_bad": (
        "l = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2), backward_layer=3)\n"
    ),
    "keras_bidirectional_merge_mode": (
        "l = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2), merge_mode='max')\n"
    ),
    "keras_bidirectional_same_direction": (
        "l = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2), "
        "backward_layer=tf.keras.layers.LSTM(2))\n"
    ),
    "keras_bidirectional_different_units": (
        "l = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2), "
        "backward_layer=tf.keras.layers.LSTM(3, go_backwards=True))\n"
    ),
    "keras_layer_positional_non_tensor": ("y = tf.keras.layers.Dense(1)(tf.ones((1, 2)), 3)\n"),
    "keras_fit_not_compiled": SEQ + "m.fit(np.ones((2, 1)), np.ones((2, 1)), verbose=0)\n",
    "keras_optimizer_not_compiled": SEQ + "o = m.optimizer\n",
    "keras_compile_loss_weights_bad": SEQ + "m.compile(loss='mse', loss_weights='a')\n",
    "keras_train_on_batch_not_compiled": SEQ
    + "m.train_on_batch(np.ones((2, 1)), np.ones((2, 1)))\n",
    "keras_compile_no_loss_fit": (
        SEQ + "m.compile(optimizer='sgd')\nm.fit(np.ones((2, 1)), np.ones((2, 1)), verbose=0)\n"
    ),
    "keras_fit_dataset_with_y": (
        SEQ + "m.compile(optimizer='sgd', loss='mse')\n"
        "ds = tf.data.Dataset.from_tensor_slices((np.ones((2, 1)), np.ones((2, 1)))).batch(2)\n"
        "m.fit(ds, np.ones((2, 1)), verbose=0)\n"
    ),
    "keras_fit_dataset_validation_split": (
        SEQ + "m.compile(optimizer='sgd', loss='mse')\n"
        "ds = tf.data.Dataset.from_tensor_slices((np.ones((2, 1)), np.ones((2, 1)))).batch(2)\n"
        "m.fit(ds, validation_split=0.5, verbose=0)\n"
    ),
    "keras_fit_dataset_no_y": (
        SEQ + "m.compile(optimizer='sgd', loss='mse')\n"
        "ds = tf.data.Dataset.from_tensor_slices(np.ones((2, 1))).batch(2)\n"
        "m.fit(ds, verbose=0)\n"
    ),
    "keras_add_metric": (
        "class L(tf.keras.layers.Layer):\n    def call(self, x):\n"
        "        self.add_metric(x)\n        return x\n\n\ny = L()(tf.ones(1))\n"
    ),
    "keras_add_loss_number": (
        "class L(tf.keras.layers.Layer):\n    def call(self, x):\n"
        "        self.add_loss(1.0)\n        return x\n\n\ny = L()(tf.ones(1))\n"
    ),
    "keras_apply_gradients_empty": (
        "opt = tf.keras.optimizers.SGD(0.1)\nopt.apply_gradients([])\n"
    ),
    "keras_apply_gradients_not_read": (
        "w = tf.Variable(1.0)\nopt = tf.keras.optimizers.SGD(0.1)\n"
        "with tf.GradientTape() as tape:\n    y = tf.constant(2.0)\n"
        "g = tape.gradient(y, [w])\nopt.apply_gradients(zip(g, [w]))\n"
    ),
    "v1_optimizer_minimize_not_callable": (
        "w = tf.Variable(1.0)\nopt = tf.compat.v1.train.GradientDescentOptimizer(0.1)\n"
        "op = opt.minimize(w * w)\n"
    ),
    "python_sum_no_args": "s = sum()\n",
    "python_int_bad": "n = int('a')\n",
    "python_max_empty": "n = max([])\n",
    "python_index_error": "a = [1.0]\nb = a[3]\n",
    "python_divide_zero": "a = 1.0 / 0\n",
    "python_key_error": "d = {'a': 1.0}\nb = d['b']\n",
    "python_unpack": "a, b = [1.0]\n",
    "python_type_error_add": "a = 'x' + 1\n",
    "add_n_shapes": "s = tf.add_n([tf.ones(2), tf.ones(3)])\n",
    "custom_gradient_variables_kw": (
        "w = tf.Variable(2.0)\n\n\n@tf.custom_gradient\ndef f(x):\n"
        "    def grad(dy):\n        return dy\n\n    return x * w, grad\n\n\n"
        "with tf.GradientTape() as tape:\n    x = tf.constant(1.0)\n    tape.watch(x)\n"
        "    y = f(x)\ng = tape.gradient(y, x)\n"
    ),
    "tf_function_keyword_unexpected": (
        "@tf.function\ndef f(x):\n    return x\n\n\ny = f(tf.constant(1.0), z=1)\n"
    ),
    "iterate_scalar_tensor": "for v in tf.constant(1.0):\n    pass\n",
    "v1_while_on_tensor": (
        "tf.compat.v1.disable_eager_execution()\n"
        "x = tf.constant(1.0)\nwhile x < 3.0:\n    x = x + 1.0\n"
    ),
    "int32_meets_float32_multiply": "a = tf.ones(2) * tf.constant([1, 2])\n",
    "gradient_through_no_gradient_op": (
        "x = tf.Variable([1.0, 2.0])\nwith tf.GradientTape() as tape:\n"
        "    y = tf.cast(tf.argmax(x), tf.float32)\ng = tape.gradient(y, x)\n"
    ),
    "tape_gradient_list_target": (
        "x = tf.Variable(1.0)\nwith tf.GradientTape() as tape:\n    y = [x * x, None]\n"
        "g = tape.gradient(y, x)\n"
    ),
    "v1_session_run_none": (
        "tf.compat.v1.disable_eager_execution()\nw = tf.compat.v1.get_variable('w', shape=[])\n"
        "x = tf.constant(1.0)\ng = tf.compat.v1.gradients(x, [w])\n"
        "with tf.compat.v1.Session() as s:\n"
        "    s.run(tf.compat.v1.global_variables_initializer())\n"
        "    r = s.run(g)\n"
    ),
    "numpy_method_in_tape": (
        "w = tf.Variable(2.0)\nwith tf.GradientTape() as tape:\n    y = w * w\n    z = y.sum()\n"
    ),
    "keras_model_fit_data_format": (
        SEQ + "m.compile(optimizer='sgd', loss='mse')\n"
        "ds = tf.data.Dataset.from_tensor_slices(((np.ones((2, 1)),) * 4,)).batch(2)\n"
        "m.fit(ds, verbose=0)\n"
    ),
    "keras_conv_channels_first": (
        "y = tf.keras.layers.Conv2D(1, 1, data_format='channels_first')(tf.ones((1, 1, 2, 2)))\n"
    ),
}
SITE_SNIPPETS["dataset_padded_batch_smaller_dynamic"] = (
    "r = list(tf.data.Dataset.range(1, 3).map(lambda n: tf.ones(n)).padded_batch(2, [1]))\n"
)
SITE_SNIPPETS["v1_scatter_update_out_of_range"] = (
    "v = tf.Variable([1.0, 2.0])\ntf.compat.v1.scatter_update(v, [5], [1.0])\n"
)
COMPILED = SEQ + "m.compile(optimizer='sgd', loss='mse')\n"
XY = "x = np.ones((2, 1), dtype='float32')\ny = np.ones((2, 1), dtype='float32')\n"
SITE_SNIPPETS.update(
    {
        "keras3_backend_mean": K + "y = keras.backend.mean(tf.ones(2))\n",
        "cond_python_branch_gradient": (
            "x = tf.Variable(1.0)\nwith tf.GradientTape() as tape:\n"
            "    y = tf.cond(x > 0, lambda: 1.0, lambda: x * 2.0)\ng = tape.gradient(y, x)\n"
        ),
        "custom_gradient_too_many_gradients": (
            "@tf.custom_gradient\ndef f(x):\n    def grad(dy):\n        return dy, dy\n\n"
            "    return x * 2.0, grad\n\n\nx = tf.Variable(1.0)\n"
            "with tf.GradientTape() as tape:\n    y = f(x)\ng = tape.gradient(y, x)\n"
        ),
        "custom_gradient_missing_variable_gradient": (
            "w = tf.Variable(2.0)\n\n\n@tf.custom_gradient\ndef f(x):\n"
            "    def grad(dy, variables=None):\n        return dy * w, []\n\n"
            "    return x * w, grad\n\n\nx = tf.constant(1.0)\n"
            "with tf.GradientTape() as tape:\n"
            "    tape.watch(x)\n    y = f(x)\ng = tape.gradient(y, x)\n"
        ),
        "numpy_function_wrong_dtype": (
            "y = tf.numpy_function(lambda a: tf.constant(1, dtype=tf.int32), [tf.ones(1)], "
            "tf.float32)\n"
        ),
        "keras_fit_dataset_sample_weight": (
            COMPILED + "ds = tf.data.Dataset.from_tensor_slices((np.ones((2, 1)), np.ones((2, 1))))"
            ".batch(2)\n"
            "m.fit(ds, sample_weight=np.ones(2), verbose=0)\n"
        ),
        "dataset_batch_different_shapes": (
            "ds = tf.data.Dataset.range(1, 3).map(lambda n: tf.ones(n)).batch(2)\nx = list(ds)\n"
        ),
        "dataset_from_slices_mismatch": (
            "ds = tf.data.Dataset.from_tensor_slices((np.ones(2), np.ones(3)))\n"
        ),
        "python_compare_str_int": "b = 'a' < 1\n",
        "keras3_thresholded_relu": K + "l = keras.layers.ThresholdedReLU()\n",
        "keras_relu_negative_slope": "l = tf.keras.layers.ReLU(negative_slope=-1.0)\n",
        "keras_thresholded_relu_negative": "l = tf.keras.layers.ThresholdedReLU(theta=-1.0)\n",
        "keras_train_on_batch_both_weights": (
            COMPILED
            + XY
            + "m.train_on_batch(x, y, sample_weight=np.ones(2), class_weight={0: 1.0})\n"
        ),
        "keras_compile_loss_dict_sequential": (
            SEQ
            + "m.compile(optimizer='sgd', loss={'dense': 'mse'})\n"
            + XY
            + "m.fit(x, y, verbose=0)\n"
        ),
        "keras_average_pooling_no_size": "l = tf.keras.layers.AveragePooling2D()\n",
        "keras3_metrics_mse_function": K + "f = keras.metrics.mean_squared_error\n",
        "keras_normalization_axis_call": (
            "l = tf.keras.layers.Normalization(axis=3, mean=1.0, variance=1.0)\n"
            "y = l(tf.ones((2, 2)))\n"
        ),
        "keras_functional_add_loss": (
            "i = tf.keras.Input((2,))\nm = tf.keras.Model(i, tf.keras.layers.Dense(1)(i))\n"
            "m.add_loss(tf.constant(1.0))\n"
        ),
        "keras_add_loss_number_outside": "l = tf.keras.layers.Dense(1)\nl.add_loss(1.0)\n",
        "keras_add_metric_outside": (
            "l = tf.keras.layers.Dense(1)\nl.add_metric(tf.constant(1.0))\n"
        ),
        "keras_zero_padding3d_wrong_count": "l = tf.keras.layers.ZeroPadding3D(padding=(1, 2))\n",
        "keras_cropping_negative": "l = tf.keras.layers.Cropping2D(cropping=-1)\n",
        "keras_zero_padding_pairs_bad": "l = tf.keras.layers.ZeroPadding2D(padding=((1, 2), 3))\n",
        "keras_zero_padding_rank": "y = tf.keras.layers.ZeroPadding2D()(tf.ones((1, 2, 2)))\n",
        "keras_time_distributed_mask": (
            "y = tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(1))(tf.ones((2, 3, 4)), "
            "mask=tf.ones((2, 2), dtype=tf.bool))\n"
        ),
        "keras_bidirectional_different_sequences": (
            "l = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2), backward_layer="
            "tf.keras.layers.LSTM(2, go_backwards=True, return_sequences=True))\n"
        ),
        "python_range_zero_step": "r = range(1, 3, 0)\n",
        "raw_ops_positional": "y = tf.raw_ops.AddV2(1.0, 2.0)\n",
        "floor_mod_gradient": (
            "x = tf.Variable(3.0)\n"
            "with tf.GradientTape() as tape:\n    y = tf.math.floormod(x, 2.0)\n"
            "g = tape.gradient(y, x)\n"
        ),
        "int_meets_float_in_a_list": "y = tf.add_n([tf.ones(2), tf.constant([1, 2])])\n",
        "numpy_in_tf_function_tolist": (
            "@tf.function\ndef f(x):\n    return x.tolist()\n\n\ny = f(tf.constant(1.0))\n"
        ),
        "keras_compute_loss_bad_keyword": (
            "class M(tf.keras.Model):\n    def train_step(self, data):\n        x, y = data\n"
            "        return {'loss': self.compute_loss(x=x, y=y, z=1)}\n\n\n"
            "i = tf.keras.Input((1,))\nm = M(i, tf.keras.layers.Dense(1)(i))\n"
            "m.compile(optimizer='sgd', loss='mse')\n" + XY + "m.fit(x, y, verbose=0)\n"
        ),
        "keras_compute_loss_no_loss": (
            "class M(tf.keras.Model):\n    def train_step(self, data):\n        x, y = data\n"
            "        return {'loss': self.compute_loss(x=x, y=y, y_pred=self(x))}\n\n\n"
            "i = tf.keras.Input((1,))\nm = M(i, tf.keras.layers.Dense(1)(i))\n"
            "m.compile(optimizer='sgd')\n" + XY + "m.fit(x, y, verbose=0)\n"
        ),
        "keras_custom_train_step_not_compiled": (
            "class M(tf.keras.Model):\n    def train_step(self, data):\n        x, y = data\n"
            "        return {'loss': self.compute_loss(x=x, y=y, y_pred=self(x))}\n\n\n"
            "i = tf.keras.Input((1,))\nm = M(i, tf.keras.layers.Dense(1)(i))\n"
            "l = m.compute_loss(x=tf.ones((1, 1)), y=tf.ones((1, 1)), y_pred=tf.ones((1, 1)))\n"
        ),
        "keras_optimizer_apply_all_none": (
            "w = tf.Variable(1.0)\nopt = tf.keras.optimizers.SGD(0.1)\nopt.apply([None], [w])\n"
        ),
        "keras_unpack_data_four": ("d = tf.keras.utils.unpack_x_y_sample_weight((1, 2, 3, 4))\n"),
        "keras_fit_unconnected": (
            "class L(tf.keras.layers.Layer):\n    def build(self, s):\n"
            "        self.w = self.add_weight(shape=(1,))\n\n    def call(self, x):\n"
            "        return x * 0.0 + tf.stop_gradient(self.w)\n\n\n"
            "m = tf.keras.Sequential([L()])\nm.compile(optimizer='sgd', loss='mse')\n"
            + XY
            + "m.fit(x, y, verbose=0)\n"
        ),
        "keras_fit_dataset_y_custom_step": (
            "class M(tf.keras.Model):\n    def train_step(self, data):\n        return {}\n\n\n"
            "i = tf.keras.Input((1,))\nm = M(i, tf.keras.layers.Dense(1)(i))\n"
            "m.compile(optimizer='sgd', loss='mse')\n"
            "ds = tf.data.Dataset.from_tensor_slices((np.ones((2, 1)), np.ones((2, 1)))).batch(2)\n"
            "m.fit(ds, np.ones((2, 1)), verbose=0)\n"
        ),
    }
)
SITE_SNIPPETS.update(
    {
        "truncatemod_gradient": (
            "x = tf.Variable(3.0)\n"
            "with tf.GradientTape() as tape:\n    y = tf.truncatemod(x, 2.0)\n"
            "g = tape.gradient(y, x)\n"
        ),
        "py_function_wrong_dtype": (
            "y = tf.py_function(lambda a: tf.constant(1), [tf.ones(1)], tf.float32)\n"
        ),
        "float32_meets_int32_variable": "a = tf.constant(1.0) + tf.Variable(1)\n",
        "float32_meets_float64_numpy": (
            "a = tf.constant([1.0]) * tf.constant([1], dtype=tf.int64)\n"
        ),
        "keras_compile_loss_dict_wrong_key": (
            "i = tf.keras.Input((1,))\no = tf.keras.layers.Dense(1, name='out')(i)\n"
            "m = tf.keras.Model(i, o)\nm.compile(optimizer='sgd', loss={'other': 'mse'})\n"
            "x = np.ones((2, 1), dtype='float32')\nm.fit(x, x, verbose=0)\n"
        ),
        "keras3_losses_mse_alias": K + "f = keras.losses.mse\n",
        "keras_zero_padding_string": "l = tf.keras.layers.ZeroPadding2D(padding='a')\n",
    }
)
SITE_SNIPPETS["numpy_call_in_dataset_map"] = (
    "ds = tf.data.Dataset.from_tensor_slices(np.array([[1.0, 2.0], [3.0, 4.0]]))\n"
    "ds = ds.map(lambda v: np.square(v))\nfor v in ds:\n    pass\n"
)
SITE_SNIPPETS["keras_custom_train_step_fit_not_compiled"] = (
    "class M(tf.keras.Model):\n    def train_step(self, data):\n        x, y = data\n"
    "        return {'loss': self.compute_loss(x=x, y=y, y_pred=self(x))}\n\n\n"
    "i = tf.keras.Input((1,))\nm = M(i, tf.keras.layers.Dense(1)(i))\n"
    "x = np.ones((2, 1), dtype='float32')\nm.fit(x, x, verbose=0)\n"
)
