//! Every equation of HiDDeN (`002_d97ecc788b964f97.txt`), in log space, under its number.
