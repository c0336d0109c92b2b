hs = {}
hs.status = "Degraded"
return hs
