//! The datasets of paper `004_74db43a26dbf0fa1.txt` (§5.1, §5.2).
