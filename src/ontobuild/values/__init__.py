"""Values as the builder reads them: numbers (with their separators), units and currencies (QUDT), and the XSD
datatypes of literals."""
