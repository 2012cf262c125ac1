//! Requests: the ioctl attribute builder.

use crate::harness::*;

/// The ioctl attribute builder: any sequence of attributes the builders may push gives a
/// header whose length and count match, inline data for 8 bytes or less, pointers into
/// the lent buffers otherwise. (Runs under Miri: no system call.)
#[test]
fn fuzz_attr_builder() {
    use uverbs::raw::attr::IoctlBuf;
    fuzz(
        "attr_builder",
        iters(),
        |r| r.bytes(32),
        |b| {
            let mut r = Rng::new(u64::from_ne_bytes(b[..8].try_into().unwrap()));
            let ins: Vec<Vec<u8>> = (0..4)
                .map(|_| {
                    let n = *r.pick(&[0usize, 1, 7, 8, 9, 16, 300, 65535]);
                    let mut v = vec![r.byte(); n];
                    for x in v.iter_mut().take(16) {
                        *x = r.byte();
                    }
                    v
                })
                .collect();
            let mut outs: Vec<Vec<u8>> = (0..4)
                .map(|_| vec![0u8; *r.pick(&[0usize, 4, 8, 48, 65535])])
                .collect();
            let mut buf: IoctlBuf<'_, 8> =
                IoctlBuf::new(r.next() as u16, r.next() as u16, r.next() as u32);
            let mut expect = Vec::new();
            let mut outs_iter = outs.iter_mut();
            for (k, i) in ins.iter().enumerate() {
                let id = k as u16;
                if r.chance(1, 2) {
                    let v = r.next();
                    buf.const_in(id, v, r.chance(1, 2));
                    expect.push((8u16, Some(v), None));
                } else {
                    buf.ptr_in(id, i, r.chance(1, 2));
                    let inline = (i.len() <= 8).then(|| {
                        let mut w = [0u8; 8];
                        w[..i.len()].copy_from_slice(i);
                        u64::from_ne_bytes(w)
                    });
                    expect.push((
                        i.len() as u16,
                        inline,
                        (i.len() > 8).then_some(i.as_ptr() as u64),
                    ));
                }
                if let Some(o) = outs_iter.next() {
                    if r.chance(1, 2) {
                        let p = o.as_mut_ptr() as u64;
                        let l = o.len() as u16;
                        buf.ptr_out(100 + id, o, true);
                        expect.push((l, None, Some(p)));
                    }
                }
            }
            let h = *buf.header();
            assert_eq!(usize::from(h.num_attrs), expect.len());
            assert_eq!(usize::from(h.length), 24 + 16 * expect.len());
            assert_eq!(buf.attrs().len(), expect.len());
            assert_eq!(buf.to_vec().len(), usize::from(h.length));
            for (a, (len, inline, ptr)) in buf.attrs().iter().zip(&expect) {
                assert_eq!(a.len, *len);
                if let Some(v) = inline {
                    assert_eq!(a.data, *v);
                }
                if let Some(p) = ptr {
                    assert_eq!(a.data, *p);
                }
            }
            "ok"
        },
    );
}
