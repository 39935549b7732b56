"""Pure graders: counterfactual scoring, causal-gym and VC deal math."""
