// The safetensors binding (section 27 of capi/ctorch.h) as the binding adds it: dictionaries
// marshalled to the header's parallel string arrays (unicode names and metadata), the file
// object's lifetime (tensors outliving it, NewReference, the SafeHandle), errors as exceptions.
// The format's rules, messages and exact bytes are the C suite's (tests/capi/safetensors_test.c).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Ctorch;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class SafeTensorsTests : TestBase
    {
        private string _dir;

        [SetUp]
        public void MakeDir()
        {
            _dir = Path.Combine(Path.GetTempPath(), "ct_st_cs_" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(_dir);
        }

        [TearDown]
        public void RemoveDir() => Directory.Delete(_dir, true);

        [Test]
        public void RoundTripThroughFileAndBytes()
        {
            long start = SafeTensors.LiveFileCount;
            Tensor w = Tensor.FromArray(new float[] { 1, 2, 3, 4, 5, 6 }, new long[] { 2, 3 }, TestDevice);
            var tensors = new Dictionary<string, Tensor>
            {
                ["w"] = w,
                ["wé/😀"] = w.T, // strided: written contiguous
                ["ids"] = Tensor.FromArray(new long[] { -7, 1L << 40 }, 2),
            };
            var meta = new Dictionary<string, string> { ["format"] = "pt", ["ключ"] = "значение ✓" };
            string path = Path.Combine(_dir, "m.safetensors");
            SafeTensors.SaveFile(path, tensors, meta);
            byte[] bytes = SafeTensors.Save(tensors, meta);
            CollectionAssert.AreEqual(File.ReadAllBytes(path), bytes, "Save gives the bytes SaveFile writes");

            foreach (Func<SafeTensorsFile> open in new Func<SafeTensorsFile>[] { () => SafeTensors.Open(path), () => SafeTensors.Load(bytes) })
            {
                SafeTensorsFile f = open();
                CollectionAssert.AreEqual(new[] { "ids", "w", "wé/😀" }, f.Keys);
                CollectionAssert.AreEquivalent(meta, f.Metadata);
                Assert.AreEqual(DType.Int64, f.GetDType("ids"));
                CollectionAssert.AreEqual(new long[] { 3, 2 }, f.GetShape("wé/😀"));
                Tensor x = f.GetTensor("wé/😀");
                CollectionAssert.AreEqual(new long[] { 3, 2 }, x.Shape);
                CollectionAssert.AreEqual(new float[] { 1, 4, 2, 5, 3, 6 }, x.ToArray<float>());
                Tensor y = f.GetTensor("ids", TestDevice);
                Assert.AreEqual(TestDevice.Type, y.Device.Type);
                StringAssert.StartsWith("SafeTensorsFile(ids, w, ", f.ToString());
                f.Dispose();
                f.Dispose(); // idempotent
                Assert.IsTrue(f.IsDisposed);
                Assert.AreEqual("SafeTensorsFile(disposed)", f.ToString());
                // the tensors outlive the file: its mapping stays while they do
                CollectionAssert.AreEqual(new float[] { 1, 4, 2, 5, 3, 6 }, x.ToArray<float>());
                CollectionAssert.AreEqual(new long[] { -7, 1L << 40 }, y.To(Device.Cpu).ToArray<long>());
                Assert.Throws<ObjectDisposedException>(() => { var _ = f.Keys; });
                Assert.Throws<ObjectDisposedException>(() => f.GetTensor("w"));
            }
            Dictionary<string, Tensor> all = SafeTensors.LoadFile(path);
            CollectionAssert.AreEquivalent(new[] { "ids", "w", "wé/😀" }, all.Keys);
            CollectionAssert.AreEqual(new float[] { 1, 2, 3, 4, 5, 6 }, all["w"].ToArray<float>());
            Assert.AreEqual(start, SafeTensors.LiveFileCount);
        }

        [Test]
        public void ZeroCopyAndCopyOnWrite()
        {
            string path = Path.Combine(_dir, "z.safetensors");
            SafeTensors.SaveFile(path, new Dictionary<string, Tensor> { ["x"] = Tensor.FromArray(new double[] { 1.5, 2.5 }, 2) });
            byte[] before = File.ReadAllBytes(path);
            using (var f = SafeTensors.Open(path))
            {
                Assert.AreEqual(0, f.Metadata.Count);
                Tensor a = f.GetTensor("x", Device.Cpu), b = f.GetTensor("x");
                Assert.AreEqual(a.DataPtr, b.DataPtr, "one mapping");
                a.Fill_(9);
                CollectionAssert.AreEqual(new double[] { 9, 9 }, b.ToArray<double>());
            }
            CollectionAssert.AreEqual(before, File.ReadAllBytes(path), "the file did not change");
        }

        [Test]
        public void ReferencesAndHandles()
        {
            long start = SafeTensors.LiveFileCount;
            byte[] empty = SafeTensors.Save(new Dictionary<string, Tensor>());
            Assert.AreEqual(16, empty.Length);
            using (var f = SafeTensors.Load(empty))
            {
                var g = f.NewReference();
                Assert.AreEqual(start + 1, SafeTensors.LiveFileCount);
                f.Dispose();
                Assert.AreEqual(0, g.Keys.Length, "g's reference keeps the file");
                g.Dispose();
            }
            Assert.AreEqual(start, SafeTensors.LiveFileCount);
            var h = SafeTensors.Load(empty);
            var raw = SafeTensorsFile.FromHandle(h.Handle.DangerousGetHandle());
            h.Handle.SetHandleAsInvalid(); // raw owns the reference now
            Assert.AreEqual(0, raw.Keys.Length);
            raw.Dispose();
            Assert.AreEqual(start, SafeTensors.LiveFileCount);
        }

        [Test]
        public void Errors()
        {
            Tensor x = Tensor.FromArray(new float[] { 1 }, 1);
            Tensor c = x.To(DType.Complex128);
            string p = Path.Combine(_dir, "e.safetensors");
            var e = Assert.Throws<CtorchException>(() => SafeTensors.SaveFile(p, new Dictionary<string, Tensor> { ["__metadata__"] = x }));
            Assert.AreEqual(StatusCode.Argument, e.Code);
            e = Assert.Throws<CtorchException>(() => SafeTensors.SaveFile(p, new Dictionary<string, Tensor> { ["c"] = c }));
            Assert.AreEqual(StatusCode.NotSupported, e.Code);
            StringAssert.Contains("torch.complex128", e.NativeMessage);
            e = Assert.Throws<CtorchException>(() => SafeTensors.Save(new Dictionary<string, Tensor> { ["c"] = c }));
            Assert.AreEqual(StatusCode.NotSupported, e.Code);
            Assert.Throws<ArgumentException>(() => SafeTensors.SaveFile(p, new Dictionary<string, Tensor> { ["a\0b"] = x }));
            Assert.Throws<ArgumentNullException>(() => SafeTensors.SaveFile(p, new Dictionary<string, Tensor> { ["a"] = null }));
            Assert.Throws<ArgumentNullException>(() => SafeTensors.SaveFile(p, new Dictionary<string, Tensor> { ["a"] = x },
                                                                              new Dictionary<string, string> { ["k"] = null }));
            Assert.Throws<ArgumentNullException>(() => SafeTensors.SaveFile(null, new Dictionary<string, Tensor>()));
            Assert.Throws<ArgumentNullException>(() => SafeTensors.SaveFile(p, null));
            x.Dispose();
            Assert.Throws<ObjectDisposedException>(() => SafeTensors.SaveFile(p, new Dictionary<string, Tensor> { ["a"] = x }));
            e = Assert.Throws<CtorchException>(() => SafeTensors.SaveFile(Path.Combine(_dir, "no", "such"),
                                                                          new Dictionary<string, Tensor> { ["c"] = Tensor.FromArray(new float[] { 2 }, 1) }));
            Assert.AreEqual(StatusCode.Argument, e.Code);
            StringAssert.Contains("No such file or directory", e.NativeMessage);
            Assert.IsFalse(File.Exists(p));

            e = Assert.Throws<CtorchException>(() => SafeTensors.Open(Path.Combine(_dir, "missing")));
            Assert.AreEqual(StatusCode.Argument, e.Code);
            e = Assert.Throws<CtorchException>(() => SafeTensors.Load(new byte[0]));
            StringAssert.Contains("(HeaderTooSmall)", e.NativeMessage);
            Assert.Throws<ArgumentNullException>(() => SafeTensors.Load(null));
            Assert.Throws<ArgumentNullException>(() => SafeTensors.Open(null));

            string hdr = "{\"q\":{\"dtype\":\"F8_E4M3\",\"shape\":[2],\"data_offsets\":[0,2]}}";
            var raw = new List<byte> { (byte)hdr.Length, 0, 0, 0, 0, 0, 0, 0 };
            raw.AddRange(System.Text.Encoding.UTF8.GetBytes(hdr));
            raw.AddRange(new byte[] { 1, 2 });
            using (var f = SafeTensors.Load(raw.ToArray()))
            {
                CollectionAssert.AreEqual(new long[] { 2 }, f.GetShape("q"));
                e = Assert.Throws<CtorchException>(() => f.GetDType("q"));
                Assert.AreEqual(StatusCode.NotSupported, e.Code);
                StringAssert.Contains("F8_E4M3", e.NativeMessage);
                e = Assert.Throws<CtorchException>(() => f.GetTensor("q"));
                Assert.AreEqual(StatusCode.NotSupported, e.Code);
                e = Assert.Throws<CtorchException>(() => f.GetTensor("nope"));
                Assert.AreEqual(StatusCode.Index, e.Code);
                e = Assert.Throws<CtorchException>(() => f.GetShape("nope"));
                Assert.AreEqual(StatusCode.Index, e.Code);
                Assert.Throws<ArgumentNullException>(() => f.GetTensor(null));
                Assert.Throws<ArgumentException>(() => f.GetDType("q\0"));
            }
        }

        [Test]
        public void CudaLoad()
        {
            if (!Cuda.IsAvailable) Assert.Ignore("no CUDA device");
            string path = Path.Combine(_dir, "g.safetensors");
            SafeTensors.SaveFile(path, new Dictionary<string, Tensor> { ["h"] = Tensor.FromArray(new float[] { 1, -2 }, 2).To(DType.Float16) });
            Dictionary<string, Tensor> all = SafeTensors.LoadFile(path, new Device(DeviceType.Cuda, 0));
            Assert.IsTrue(all["h"].Device.IsCuda);
            CollectionAssert.AreEqual(new float[] { 1, -2 }, all["h"].To(Device.Cpu, DType.Float32).ToArray<float>());
        }
    }
}
