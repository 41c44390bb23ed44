import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;

// GuiCatalog makes the DatabaseMetaData calls DBeaver makes when it opens
// a connection and browses a table, and prints each call's rows as
// "call: col=value, ..." lines. Any SQLException fails the program.
// Usage: java GuiCatalog jdbc-url user password table referenced-table
public class GuiCatalog {
    public static void main(String[] args) throws Exception {
        String url = args[0], user = args[1], password = args[2], table = args[3], parent = args[4];
        try (Connection c = DriverManager.getConnection(url, user, password)) {
            DatabaseMetaData md = c.getMetaData();
            System.out.println("product: " + md.getDatabaseProductName() + " " + md.getDatabaseProductVersion());
            System.out.println("user: " + md.getUserName());
            System.out.println("catalog: " + c.getCatalog());
            print("getCatalogs", md.getCatalogs());
            print("getSchemas", md.getSchemas());
            print("getSchemas(public)", md.getSchemas(null, "public"));
            print("getTableTypes", md.getTableTypes());
            print("getTables", md.getTables(null, "public", "%", new String[] {"TABLE", "VIEW"}));
            print("getColumns", md.getColumns(null, "public", table, "%"));
            print("getPrimaryKeys", md.getPrimaryKeys(null, "public", table));
            print("getImportedKeys", md.getImportedKeys(null, "public", table));
            print("getExportedKeys", md.getExportedKeys(null, "public", parent));
            print("getIndexInfo", md.getIndexInfo(null, "public", table, false, true));
            print("getTypeInfo", md.getTypeInfo());
            print("getProcedures", md.getProcedures(null, "public", "%"));
            print("getFunctions", md.getFunctions(null, "public", "%"));
            print("getTablePrivileges", md.getTablePrivileges(null, "public", table));
            print("getUDTs", md.getUDTs(null, "public", "%", null));
        }
        System.out.println("done");
    }

    static void print(String call, ResultSet rs) throws SQLException {
        ResultSetMetaData m = rs.getMetaData();
        int rows = 0;
        while (rs.next()) {
            StringBuilder b = new StringBuilder(call).append(":");
            for (int i = 1; i <= m.getColumnCount(); i++) {
                b.append(i == 1 ? " " : ", ").append(m.getColumnLabel(i).toLowerCase()).append("=").append(rs.getString(i));
            }
            System.out.println(b);
            rows++;
        }
        rs.close();
        System.out.println(call + " rows=" + rows);
    }
}
