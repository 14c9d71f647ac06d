import VPSGeometry
import VPSImaging
