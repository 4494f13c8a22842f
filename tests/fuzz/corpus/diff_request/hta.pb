
basetest
(Zñhp