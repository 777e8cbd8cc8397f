"""Thin routers: they translate HTTP and socket messages to game-service calls and back."""
