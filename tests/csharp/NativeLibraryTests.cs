// Native library resolution (Note [Native library resolution], bindings/csharp/NativeLibrary.cs):
// the check at first use and the text of its error. Loading from the NuGet layout and from a
// flat folder, and the errors a user sees, are tested outside the workspace by
// //tests/dist:csharp_consumer_test.
using System.IO;
using NUnit.Framework;

namespace Ctorch.Tests
{
    [TestFixture]
    public class NativeLibraryTests : TestBase
    {
        [Test]
        public void CheckPassesWhereTheLibraryLoads()
        {
            Assert.IsTrue(NativeLibrary.Check());
        }

        [Test]
        public void DllMapTargetIsReadFromTheConfig()
        {
            string config = Path.Combine(Path.GetTempPath(), "ctorch-native-library-test-" + System.Guid.NewGuid() + ".config");
            try
            {
                File.WriteAllText(config,
                    "<configuration>\n" +
                    "  <dllmap dll=\"libc\" target=\"libc.so.6\" />\n" +
                    "  <dllmap os=\"linux\" dll=\"ctorch_csharp\"\n        target=\"../x/libctorch_csharp.so\"/>\n" +
                    "</configuration>\n");
                Assert.AreEqual("../x/libctorch_csharp.so", NativeLibrary.DllMapTarget(config));
                File.WriteAllText(config, "<configuration><dllmap dll=\"libc\" target=\"libc.so.6\" /></configuration>");
                Assert.IsNull(NativeLibrary.DllMapTarget(config));
            }
            finally
            {
                File.Delete(config);
            }
            Assert.IsNull(NativeLibrary.DllMapTarget(config), "no file, no dllmap");
        }

        [Test]
        public void ExplainNamesEveryPlaceAndWhatDlopenSaid()
        {
            // The suite runs Ctorch.dll without a config, from a folder without the glue, which
            // LD_LIBRARY_PATH finds (tools/mono_test.sh).
            string dir = Path.GetDirectoryName(typeof(Tensor).Assembly.Location);
            string text = NativeLibrary.Explain("what Mono said");
            StringAssert.Contains(Path.Combine(dir, "libctorch_csharp.so") + ": no such file  (the assembly's folder)", text);
            StringAssert.Contains("libctorch_csharp.so through dlopen's search path (LD_LIBRARY_PATH=", text);
            StringAssert.Contains("ld.so.cache): loads", text);
            StringAssert.Contains("Mono said: what Mono said", text);
        }
    }
}
