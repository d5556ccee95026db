"""The version of abnfc, recorded in every generated file."""
__version__ = "0.1.0"
