
dlrmtf2(P`