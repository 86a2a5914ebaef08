//! Every equation of paper `004_74db43a26dbf0fa1.txt`, under its number.
