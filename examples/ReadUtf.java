// Java's DataInputStream.readUTF (modified UTF-8, as in class files and serialization) for
// `abnfc crosscheck` and `abnfc learn`: one input per line in hex on standard input, one verdict
// per line (1 or 0) on standard output.  Each input is given to readUTF behind its two-byte
// length, as DataOutputStream.writeUTF writes it.  The verdicts are buffered until standard
// input closes, as many programs do; abnfc reads them then.
//
//     javac -d /tmp examples/ReadUtf.java
//     abnfc learn grammars/utf8.abnf --cmd 'java -cp /tmp ReadUtf'
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;

public final class ReadUtf {
    private ReadUtf() {}

    static boolean accepts(byte[] data) {
        byte[] framed = new byte[data.length + 2];
        framed[0] = (byte) (data.length >>> 8);
        framed[1] = (byte) data.length;
        System.arraycopy(data, 0, framed, 2, data.length);
        try {
            new DataInputStream(new ByteArrayInputStream(framed)).readUTF();
            return true;
        } catch (IOException malformed) {  // UTFDataFormatException, or EOFException mid-character
            return false;
        }
    }

    static byte[] fromHex(String line) {
        String hex = line.trim();
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.US_ASCII), 1 << 20);
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            out.write(accepts(fromHex(line)) ? "1\n" : "0\n");
        }
        out.flush();
    }
}
