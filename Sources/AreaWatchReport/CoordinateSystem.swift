/// The one coordinate system of every output: WGS 84 longitude/latitude in degrees (EPSG:4326;
/// GeoJSON's and GeoParquet's default, OGC:CRS84, is the same system with longitude first).
enum CoordinateSystem {
    /// The `.prj` beside a CSV with a `wkt` column (GeoCSV): GDAL, and QGIS through it, read the
    /// system from it instead of asking. OGC WKT 1 with the EPSG codes, as GDAL writes it; GDAL
    /// keeps longitude first for the data (its axis mapping 2,1).
    static let prj = """
        GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],\
        AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],\
        UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],\
        AUTHORITY["EPSG","4326"]]
        """ + "\n"
}
