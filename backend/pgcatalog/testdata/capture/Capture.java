import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Properties;

/**
 * Runs pgjdbc's DatabaseMetaData calls against the corpus schema so that the
 * server log records the catalog queries each sends (scripts/capture-catalog-queries.sh).
 * Before each call the session's application_name is "cap:jdbc:<call>".
 * argv: host, port, user, database.
 */
public class Capture {
    interface Op { ResultSet run(DatabaseMetaData md) throws Exception; }

    static Connection conn;

    static void op(String name, Op op) throws Exception {
        try (Statement st = conn.createStatement()) {
            st.execute("SET application_name = 'cap:jdbc:" + name + "'");
        }
        try (ResultSet rs = op.run(conn.getMetaData())) {
            while (rs.next()) {
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) rs.getObject(i);
            }
        }
    }

    public static void main(String[] a) throws Exception {
        Properties p = new Properties();
        p.setProperty("user", a[2]);
        p.setProperty("ApplicationName", "cap:jdbc:connect");
        conn = DriverManager.getConnection("jdbc:postgresql://" + a[0] + ":" + a[1] + "/" + a[3], p);
        op("getTables", md -> md.getTables(null, null, "%", new String[] {"TABLE", "VIEW", "SEQUENCE"}));
        op("getTables all types", md -> md.getTables(null, "public", null, null));
        for (String t : new String[] {"authors", "books"}) {
            op("getColumns " + t, md -> md.getColumns(null, "public", t, "%"));
            op("getPrimaryKeys " + t, md -> md.getPrimaryKeys(null, "public", t));
            op("getImportedKeys " + t, md -> md.getImportedKeys(null, "public", t));
            op("getExportedKeys " + t, md -> md.getExportedKeys(null, "public", t));
            op("getIndexInfo " + t, md -> md.getIndexInfo(null, "public", t, false, false));
        }
        op("getColumns all", md -> md.getColumns(null, null, "%", null));
        op("getSchemas", md -> md.getSchemas());
        op("getCatalogs", md -> md.getCatalogs());
        op("getTypeInfo", md -> md.getTypeInfo());
        op("getTableTypes", md -> md.getTableTypes());
        // A typed read makes pgjdbc resolve the result's types through the catalog.
        op("getColumnType of a query", md -> {
            Statement st = conn.createStatement();
            ResultSet rs = st.executeQuery("SELECT books.id, price, created_at FROM books JOIN authors ON books.author_id = authors.id");
            for (int i = 1; i <= 3; i++) { rs.getMetaData().getColumnTypeName(i); rs.getMetaData().isNullable(i); rs.getMetaData().isAutoIncrement(i); }
            return rs;
        });
        conn.close();
    }
}
