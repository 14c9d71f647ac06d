import VPSGeometry

print("multiset: placeholder")
