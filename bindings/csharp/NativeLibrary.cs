// How Ctorch.dll finds its native libraries, and the error that says where it looked.
using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text.RegularExpressions;

namespace Ctorch
{
    /// <summary>
    /// Checks, at the first use of the binding, that the native libraries load, and otherwise
    /// throws a DllNotFoundException naming every place looked at (Note [Native library
    /// resolution]).
    /// </summary>
    /// <remarks>
    /// Note [Native library resolution]
    /// Every P/Invoke of the binding names "ctorch_csharp" (SWIG's -dllimport), that is
    /// libctorch_csharp.so, SWIG's C glue, whose DT_NEEDED libctorch.so its RUNPATH finds
    /// ($ORIGIN in the NuGet package; Bazel's folders in the workspace). Mono 6.8 resolves the
    /// name through a dllmap of Ctorch.dll.config if there is one, then in the assembly's
    /// folder, then through dlopen's search path (LD_LIBRARY_PATH, ld.so.cache). So:
    ///   - next to the assembly (a flat application folder): found by Mono as it is;
    ///   - the NuGet package (lib/net47/Ctorch.dll, runtimes/linux-x64/native/*.so): the
    ///     package's lib/net47/Ctorch.dll.config maps "ctorch_csharp" to
    ///     ../../runtimes/linux-x64/native/libctorch_csharp.so, which Mono takes relative to
    ///     the assembly's folder (written by bindings/csharp/nuget_pack.sh);
    ///   - the workspace's tests: LD_LIBRARY_PATH (tools/mono_test.sh, tools/mono_run.sh).
    /// Loading it ourselves (dlopen by absolute path from a static constructor) does not work
    /// on Mono: it looks a DllImport up when it compiles the first method that calls it, before
    /// any static constructor of that method's class or module has run, and a failed lookup
    /// stays failed for that method; and Mono has no NativeLibrary.SetDllImportResolver
    /// (.NET Core 3.0). What managed code can do is explain a failure: the type initializer of
    /// the SWIG module class Ctorch.Swig.ctorch (bindings/swig/ctorch.i) first calls
    /// <see cref="Check"/>, which calls one function through "ctorch_csharp" and, when that
    /// fails, throws a DllNotFoundException listing the dllmap target (read from
    /// Ctorch.dll.config), the assembly's folder and dlopen's search path, each with what
    /// dlopen says about it (a missing libctorch.so beside an existing glue, say).
    /// </remarks>
    internal static class NativeLibrary
    {
        /// <summary>The DllImport name of the binding and its file name.</summary>
        internal const string DllImportName = "ctorch_csharp", GlueFileName = "libctorch_csharp.so";

        // A function of libctorch.so with no arguments and no effect, reached through the glue's
        // handle (dlsym searches its dependencies), as the OOM hook's registration is.
        [DllImport(DllImportName, EntryPoint = "ct_last_error_code", CallingConvention = CallingConvention.Cdecl)]
        private static extern int LastErrorCode();

        // libdl.so.2 exists on every glibc (a stub forwarding to libc.so.6 since 2.34).
        [DllImport("libdl.so.2", EntryPoint = "dlopen")]
        private static extern IntPtr DlOpen(string file, int mode);

        [DllImport("libdl.so.2", EntryPoint = "dlclose")]
        private static extern int DlClose(IntPtr handle);

        [DllImport("libdl.so.2", EntryPoint = "dlerror")]
        private static extern IntPtr DlError();

        private const int RTLD_NOW = 0x2;

        /// <summary>Returns true when the native libraries load; otherwise throws
        /// DllNotFoundException with <see cref="Explain"/>'s text.</summary>
        internal static bool Check()
        {
            try
            {
                Probe();
                return true;
            }
            catch (Exception e) when (e is DllNotFoundException || e is EntryPointNotFoundException)
            {
                throw new DllNotFoundException(Explain(e.Message), e);
            }
        }

        // Not inlined: the DllImport is looked up when this method is compiled, inside the try.
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static void Probe() => LastErrorCode();

        /// <summary>Where Mono looked for "ctorch_csharp", in its order, each with what dlopen
        /// says about it.</summary>
        internal static string Explain(string monoMessage)
        {
            // Mono resolves a DllImport when it compiles its first caller, with dlsym, which
            // clears the thread's dlerror: resolve dlerror before the first failing dlopen.
            LastDlError();
            string location = typeof(NativeLibrary).Assembly.Location;
            string dir = string.IsNullOrEmpty(location) ? null : Path.GetDirectoryName(Path.GetFullPath(location));
            var lines = new List<string>();
            string target = dir == null ? null : DllMapTarget(location + ".config");
            if (target != null)
                lines.Add(Describe(Path.GetFullPath(Path.Combine(dir, target))) + "  (the dllmap of " + Path.GetFileName(location) + ".config)");
            else
            {
                if (dir != null) lines.Add(Describe(Path.Combine(dir, GlueFileName)) + "  (the assembly's folder)");
                IntPtr h = DlOpen(GlueFileName, RTLD_NOW);
                string why = h == IntPtr.Zero ? LastDlError() : "loads";
                if (h != IntPtr.Zero) DlClose(h);
                lines.Add(GlueFileName + " through dlopen's search path (LD_LIBRARY_PATH=" +
                          (Environment.GetEnvironmentVariable("LD_LIBRARY_PATH") ?? "unset") + ", ld.so.cache): " + why);
            }
            return "ctorch: cannot load the native library \"" + DllImportName + "\" (" + GlueFileName +
                   ", which needs libctorch.so) for " + (location ?? "Ctorch.dll") + ". Looked at:\n  " +
                   string.Join("\n  ", lines) + "\nMono said: " + monoMessage +
                   "\nKeep the NuGet package's layout (lib/<tfm>/Ctorch.dll with Ctorch.dll.config, " +
                   "runtimes/linux-x64/native/), or put " + GlueFileName + " and libctorch.so next to Ctorch.dll " +
                   "without Ctorch.dll.config (docs/csharp.md, \"Install\").";
        }

        private static string Describe(string path)
        {
            if (!File.Exists(path)) return path + ": no such file";
            IntPtr h = DlOpen(path, RTLD_NOW);
            if (h == IntPtr.Zero) return path + ": " + LastDlError();
            DlClose(h);
            return path + ": loads";
        }

        private static string LastDlError()
        {
            IntPtr e = DlError();
            return e == IntPtr.Zero ? "(no dlerror)" : Marshal.PtrToStringAnsi(e);
        }

        /// <summary>The target of the dllmap for "ctorch_csharp" in the assembly's config file,
        /// or null when there is none.</summary>
        internal static string DllMapTarget(string configPath)
        {
            if (!File.Exists(configPath)) return null;
            foreach (Match m in Regex.Matches(File.ReadAllText(configPath), "<dllmap\\b[^>]*>"))
            {
                string dll = Attribute(m.Value, "dll"), target = Attribute(m.Value, "target");
                if (dll == DllImportName && target != null) return target;
            }
            return null;
        }

        private static string Attribute(string element, string name)
        {
            Match m = Regex.Match(element, "\\b" + name + "\\s*=\\s*\"([^\"]*)\"");
            return m.Success ? m.Groups[1].Value : null;
        }
    }
}
