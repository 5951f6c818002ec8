/**
 * web_fetch's SSRF guard: which resolved addresses a fetch may connect to.
 * Loopback, private, link-local (cloud metadata at 169.254.169.254),
 * unspecified, multicast and reserved ranges are refused unless the user
 * allows the private network; IPv4 inside IPv6 (mapped, compatible, NAT64)
 * is judged as the IPv4 address it carries.
 */
import net from "node:net";

const V4_RANGES: ReadonlyArray<[string, number, string]> = [
    ["0.0.0.0", 8, "an unspecified address"],
    ["10.0.0.0", 8, "a private network address"],
    ["100.64.0.0", 10, "a carrier-grade NAT address"],
    ["127.0.0.0", 8, "a loopback address"],
    ["169.254.0.0", 16, "a link-local address (cloud metadata lives there)"],
    ["172.16.0.0", 12, "a private network address"],
    ["192.0.0.0", 24, "a reserved address"],
    ["192.168.0.0", 16, "a private network address"],
    ["198.18.0.0", 15, "a reserved address"],
    ["224.0.0.0", 4, "a multicast address"],
    ["240.0.0.0", 4, "a reserved address"],
];

const V6_RANGES: ReadonlyArray<[string, number, string]> = [
    ["::", 128, "an unspecified address"],
    ["::1", 128, "a loopback address"],
    ["fc00::", 7, "a private network address"],
    ["fe80::", 10, "a link-local address"],
    ["ff00::", 8, "a multicast address"],
];

function blockList(ranges: ReadonlyArray<[string, number, string]>, family: "ipv4" | "ipv6") {
    return ranges.map(([network, prefix, why]) => {
        const list = new net.BlockList();
        list.addSubnet(network, prefix, family);
        return { list, why };
    });
}

const V4 = blockList(V4_RANGES, "ipv4");
const V6 = blockList(V6_RANGES, "ipv6");

/** The 8 groups of an IPv6 address as numbers, or undefined when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
    if (net.isIPv6(address) === false) return undefined;
    let text = address.toLowerCase().replace(/%.*$/, "");
    // A dotted IPv4 tail (::ffff:1.2.3.4) becomes two groups.
    const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
    if (dotted) {
        const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number];
        text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
    }
    const [head = "", tail] = text.split("::");
    const left = head === "" ? [] : head.split(":");
    const right = tail === undefined || tail === "" ? [] : tail.split(":");
    const fill = tail === undefined ? 0 : 8 - left.length - right.length;
    return [...left, ...Array<string>(fill).fill("0"), ...right].map((g) => parseInt(g, 16));
}

/** The IPv4 address an IPv6 one carries (::ffff:a.b.c.d, ::a.b.c.d, 64:ff9b::a.b.c.d), if any. */
function embeddedIpv4(groups: number[]): string | undefined {
    const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
    const mapped = zeros(0, 5) && groups[5] === 0xffff;
    const compatible = zeros(0, 6) && (groups[6] !== 0 || (groups[7] ?? 0) > 1);
    const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6);
    if (!mapped && !compatible && !nat64) return undefined;
    const [hi = 0, lo = 0] = groups.slice(6);
    return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join(".");
}

/**
 * Why connecting to `address` (an IP literal) is refused, or undefined when
 * it is a public address. Anything that is not an IP address is refused.
 */
export function blockedAddressReason(address: string): string | undefined {
    const bare = address.replace(/^\[|\]$/g, "");
    if (net.isIPv4(bare)) return V4.find(({ list }) => list.check(bare, "ipv4"))?.why;
    const groups = ipv6Groups(bare);
    if (!groups || groups.length !== 8 || groups.some((g) => Number.isNaN(g))) {
        return "not an IP address";
    }
    const inner = embeddedIpv4(groups);
    if (inner !== undefined) return blockedAddressReason(inner);
    return V6.find(({ list }) => list.check(bare.replace(/%.*$/, ""), "ipv6"))?.why;
}
