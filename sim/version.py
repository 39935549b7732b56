"""Engine version: recorded in every journal header and seal."""

ENGINE_VERSION = "cfwb-engine/1.0"
BIT_GENERATOR = "Philox4x64-10"
