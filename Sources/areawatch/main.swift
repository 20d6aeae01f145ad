print("areawatch")
