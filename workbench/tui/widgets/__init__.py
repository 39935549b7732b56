"""Small widgets that own their styles and keys; screens compose them and feed them data."""
