"""Spoken calls: pocketsphinx keyword spotting → `VoiceCall` (see docs/voice.md)."""

from referee.voice.grammar import VoiceConfigError, load_config
from referee.voice.listener import CallListener, VoiceCall

__all__ = ["CallListener", "VoiceCall", "VoiceConfigError", "load_config"]
