"""The version of harmonize, on its own so that every module can name it without importing the package's API."""

__version__ = "0.1.0"
