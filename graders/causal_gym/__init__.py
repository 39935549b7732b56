"""causal-gym: keyed causal-inference tasks with certified identification and a Winkler reward."""
