
nope../etc