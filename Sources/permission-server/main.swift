print("permission-server: not yet assembled")
