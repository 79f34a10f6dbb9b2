"""The price book pages: the list, one price with its history, the forms, and CSV import and
export."""
