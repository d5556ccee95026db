"""What the commands share: :mod:`.options` (the option groups several commands declare: grammar
input, limits, exploration, locale, the implementation to run) and :mod:`.writing` (writing the
files a command makes, atomically, with signals held back)."""
