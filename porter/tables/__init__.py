"""Data rows tileport runs on and documents from: what each source construct becomes, or why
it is refused, with its diagnostic code (hipify's one mapping table). SUPPORTED.md is
generated from them (porter/match/supported.py); tests fail on a row no code path serves and
on a code path no row names."""
