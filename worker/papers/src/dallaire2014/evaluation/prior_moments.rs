//! The exact prior moments of the CIBP and eCIBP structure (issue 17 §4, `prior_moments.csv`).
