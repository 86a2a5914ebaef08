//! The KDE baseline of Table 1.
