"""Small fake games that prove the host's generic code (terminal game, log, bots) works
for any game of the interface, not only Vora. Registered only inside the tests that use
them (see register())."""
