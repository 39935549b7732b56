"""Engine version: recorded in every journal header and seal.

It names everything that shapes a run's sealed results, so it changes whenever they
would: 1.1 is ledger digest v2 (`cfwb.ledger-digest/2`). A run from another version is
refused at its journal header, naming both versions, rather than at a seal that no
longer matches for a reason the message cannot say.
"""

ENGINE_VERSION = "cfwb-engine/1.1"
BIT_GENERATOR = "Philox4x64-10"
