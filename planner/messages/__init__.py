"""The engine's sentences in the reader's language: the catalogue of message codes
(`catalogue`), how one is written out (`render`), and whole answers localised for a page, an
export or the API (`answers`)."""
