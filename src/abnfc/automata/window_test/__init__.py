"""The window test: :mod:`.definite` decides whether the last k bytes of an input decide the
DFA's state (k-definiteness), :mod:`.cover` derives from such a DFA a test of each window of k+1
bytes on its own (boxes of byte classes), which generated code evaluates many positions at once."""
from .cover import NoWindowTest, WindowTest, accepts, sentence, window_test
from .definite import Definiteness, definiteness

__all__ = ["Definiteness", "NoWindowTest", "WindowTest", "accepts", "definiteness", "sentence", "window_test"]
