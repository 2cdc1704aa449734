print("permctl: not yet assembled")
