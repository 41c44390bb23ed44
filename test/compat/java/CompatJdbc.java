// pgjdbc (Debian's libpostgresql-jdbc-java) as Java applications and GUI
// tools such as DBeaver use it: prepared statements, a transaction, the
// DatabaseMetaData calls (tables, columns, primary and foreign keys,
// indexes), a 40001 conflict retried. Compiled with javac by
// test/compat_test.go. Args: JDBC URL, user, password, table prefix.
// Prints one JSON line per step.

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

public class CompatJdbc {
    interface Step { void run() throws Exception; }

    static String url, user, password, p;

    static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static void step(String name, Step s) {
        try {
            s.run();
            System.out.println("{\"step\": " + quote(name) + ", \"ok\": true}");
        } catch (Throwable e) {
            String msg = e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).split("\n")[0];
            if (e instanceof SQLException && ((SQLException) e).getSQLState() != null && !msg.contains(((SQLException) e).getSQLState())) {
                msg += " (SQLSTATE " + ((SQLException) e).getSQLState() + ")";
            }
            if (msg.length() > 400) msg = msg.substring(0, 400);
            System.out.println("{\"step\": " + quote(name) + ", \"ok\": false, \"error\": " + quote(msg) + "}");
            e.printStackTrace();
        }
        System.out.flush();
    }

    static void check(String sql) {
        System.out.println("{\"check\": " + quote(sql) + "}");
    }

    static void expect(boolean cond, String what) {
        if (!cond) throw new AssertionError(what);
    }

    static Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    static List<String> column(ResultSet rs, String name) throws SQLException {
        List<String> out = new ArrayList<>();
        while (rs.next()) out.add(rs.getString(name));
        rs.close();
        return out;
    }

    public static void main(String[] args) throws Exception {
        url = args[0];
        user = args[1];
        password = args[2];
        p = args[3];
        Connection[] c = new Connection[1];
        step("connect", () -> c[0] = connect());
        Connection conn = c[0];
        if (conn == null) return;
        step("create tables (a foreign key, an index)", () -> {
            try (Statement st = conn.createStatement()) {
                st.execute("CREATE TABLE " + p + "_dept (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)");
                st.execute("CREATE TABLE " + p + "_emp (id INTEGER PRIMARY KEY, dept_id INTEGER NOT NULL REFERENCES "
                        + p + "_dept (id), name VARCHAR(40) NOT NULL, salary NUMERIC(10,2))");
                st.execute("CREATE INDEX " + p + "_emp_name ON " + p + "_emp (name)");
            }
        });
        step("prepared statements (batch insert, query)", () -> {
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO " + p + "_dept (id, name) VALUES (?, ?)")) {
                ps.setInt(1, 1); ps.setString(2, "ops"); ps.addBatch();
                ps.setInt(1, 2); ps.setString(2, "dev"); ps.addBatch();
                ps.executeBatch();
            }
            try (PreparedStatement ps = conn.prepareStatement("INSERT INTO " + p + "_emp (id, dept_id, name, salary) VALUES (?, ?, ?, ?)")) {
                for (int i = 1; i <= 6; i++) { // past prepareThreshold: a server-side statement
                    ps.setInt(1, i); ps.setInt(2, 1 + i % 2); ps.setString(3, "e" + i); ps.setBigDecimal(4, new BigDecimal(i + "000.50"));
                    expect(ps.executeUpdate() == 1, "insert " + i);
                }
            }
            try (PreparedStatement ps = conn.prepareStatement("SELECT name, salary FROM " + p + "_emp WHERE dept_id = ? ORDER BY id")) {
                ps.setInt(1, 2);
                ResultSet rs = ps.executeQuery();
                expect(rs.next() && rs.getString(1).equals("e1") && rs.getBigDecimal(2).equals(new BigDecimal("1000.50")), "first row of dept 2");
                rs.close();
            }
        });
        step("a transaction (commit, rollback)", () -> {
            conn.setAutoCommit(false);
            try (Statement st = conn.createStatement()) {
                st.executeUpdate("UPDATE " + p + "_emp SET salary = salary + 1 WHERE id = 1");
                conn.commit();
                st.executeUpdate("DELETE FROM " + p + "_emp WHERE id = 2");
                conn.rollback();
                ResultSet rs = st.executeQuery("SELECT count(*), sum(salary) FROM " + p + "_emp");
                expect(rs.next() && rs.getInt(1) == 6 && rs.getBigDecimal(2).equals(new BigDecimal("21004.00")),
                        "after commit and rollback");
                rs.close();
                conn.commit();
            } finally {
                conn.setAutoCommit(true);
            }
        });
        DatabaseMetaData md = conn.getMetaData();
        step("DatabaseMetaData.getTables", () -> {
            List<String> t = column(md.getTables(null, "public", p + "_%", new String[] {"TABLE"}), "TABLE_NAME");
            expect(t.contains(p + "_dept") && t.contains(p + "_emp"), "getTables: " + t);
        });
        step("DatabaseMetaData.getColumns", () -> {
            ResultSet rs = md.getColumns(null, "public", p + "_emp", "%");
            List<String> cols = new ArrayList<>();
            while (rs.next()) cols.add(rs.getString("COLUMN_NAME") + ":" + rs.getString("TYPE_NAME") + ":" + rs.getInt("COLUMN_SIZE"));
            rs.close();
            expect(cols.toString().equals("[id:int4:10, dept_id:int4:10, name:varchar:40, salary:numeric:10]"), "getColumns: " + cols);
        });
        step("DatabaseMetaData.getPrimaryKeys", () -> {
            List<String> k = column(md.getPrimaryKeys(null, "public", p + "_emp"), "COLUMN_NAME");
            expect(k.toString().equals("[id]"), "getPrimaryKeys: " + k);
        });
        step("DatabaseMetaData.getImportedKeys", () -> {
            ResultSet rs = md.getImportedKeys(null, "public", p + "_emp");
            expect(rs.next() && rs.getString("PKTABLE_NAME").equals(p + "_dept") && rs.getString("FKCOLUMN_NAME").equals("dept_id"),
                    "getImportedKeys found no key to " + p + "_dept");
            rs.close();
        });
        step("DatabaseMetaData.getIndexInfo", () -> {
            List<String> ix = column(md.getIndexInfo(null, "public", p + "_emp", false, false), "INDEX_NAME");
            expect(ix.contains(p + "_emp_name") && ix.contains(p + "_emp_pkey"), "getIndexInfo: " + ix);
        });
        step("40001 conflict, retried", () -> {
            try (Statement st = conn.createStatement()) {
                st.execute("CREATE TABLE " + p + "_counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
                st.execute("INSERT INTO " + p + "_counter VALUES (1, 0)");
            }
            Connection a = connect(), b = connect();
            a.setAutoCommit(false);
            b.setAutoCommit(false);
            String read = "SELECT n FROM " + p + "_counter WHERE id = 1", write = "UPDATE " + p + "_counter SET n = ? WHERE id = 1";
            int na = readN(a, read), nb = readN(b, read);
            List<String> codes = new ArrayList<>();
            Connection[] both = {a, b};
            int[] seen = {na, nb};
            for (int i = 0; i < 2; i++) {
                try {
                    writeN(both[i], write, seen[i] + 1);
                    both[i].commit();
                    continue;
                } catch (SQLException e) {
                    codes.add(e.getSQLState());
                    both[i].rollback();
                }
                for (int attempt = 0; attempt < 5; attempt++) {
                    try {
                        writeN(both[i], write, readN(both[i], read) + 1);
                        both[i].commit();
                        break;
                    } catch (SQLException e) {
                        codes.add(e.getSQLState());
                        both[i].rollback();
                    }
                }
            }
            a.close();
            b.close();
            int n;
            try (Statement st = conn.createStatement(); ResultSet rs = st.executeQuery(read)) {
                rs.next();
                n = rs.getInt(1);
            }
            expect(!codes.isEmpty() && codes.get(0).equals("40001"), "SQLSTATEs " + codes + ", want one 40001");
            expect(n == 2, "n = " + n + " after the retry, want 2");
        });
        check("SELECT id, name FROM " + p + "_dept ORDER BY id");
        check("SELECT id, dept_id, name, salary FROM " + p + "_emp ORDER BY id");
        check("SELECT id, n FROM " + p + "_counter ORDER BY id");
        conn.close();
    }

    static int readN(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    static void writeN(Connection c, String sql, int n) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setInt(1, n);
            ps.executeUpdate();
        }
    }
}
