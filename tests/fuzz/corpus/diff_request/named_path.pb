
tf2tf1
SimpleTransformerLayer_0