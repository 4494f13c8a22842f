
tf1tf22
0/02delta_host_self_us:aten::(add|mm)@ˆ