import tensorflow as tf

# Define a simple model
model = tf.keras.models.Sequential([
  tf.keras.layers.Dense(units=10, activation='relu', input_shape=(5,)),
  tf.keras.layers.Dense(units=2)
])

# Define some dummy data
input_data = tf.random.normal((32, 5))
labels = tf.random.normal((32, 2))

# Define the loss function
loss_function = tf.keras.losses.MeanSquaredError()

# Calculate the loss and gradients
with tf.GradientTape() as tape:
    predictions = model(input_data)
    loss = loss_function(labels, predictions)

gradients = tape.gradient(loss, model.trainable_variables)

# Apply gradients
optimizer = tf.keras.optimizers.Adam(learning_rate=0.001)
optimizer.apply_gradients(zip(gradients, model.trainable_variables))

# Output a few gradients to illustrate the calculation
for g in gradients[:3]:
   print(g)

# values: structure
# expect: call 0 source #0: connected
# expect: call 0 source #1: connected
# expect: call 0 source #2: connected
# expect: call 0 source #3: connected
