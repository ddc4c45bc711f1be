package example;

import io.softcmi.cmi.AttachFlag;
import io.softcmi.cmi.Cmi;
import io.softcmi.cmi.CmiContext;
import io.softcmi.cmi.CmiMapping;
import io.softcmi.cmi.CmiSegment;
import io.softcmi.cmi.SegFlag;
import java.util.EnumSet;

/**
 * A minimal application of softcmi: a segment, a store, a load and a compare-and-swap. It joins
 * the node named by SOFTCMI_NODE, or runs an embedded node when that is unset.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp "target/hello-cmi.jar:target/lib/*" example.HelloCmi
 * </pre>
 */
public final class HelloCmi {
    private HelloCmi() {
    }

    /**
     * Entry point.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        try (CmiContext ctx = Cmi.init(Cmi.LIBRARY_VERSION)) {
            CmiSegment seg = ctx.segGet(1 << 20, EnumSet.noneOf(SegFlag.class));
            try {
                CmiMapping m = ctx.segAt(seg, EnumSet.noneOf(AttachFlag.class));
                ctx.enable(true); // cmi_enb: loads and stores need this thread's access epoch
                try {
                    m.putLong(0, 41);
                    long before = ctx.atmCas(m, 0, 41, 42);
                    System.out.println("hello-cmi: segment " + seg.id() + ", cas saw " + before + ", now "
                        + m.getLong(0));
                } finally {
                    ctx.segDt(m);
                }
            } finally {
                ctx.segRemove(seg);
            }
        }
    }
}
