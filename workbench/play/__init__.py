"""The player's side: the session, its public view, scripts and demo play."""
