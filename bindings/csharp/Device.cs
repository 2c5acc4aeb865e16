// Devices: "cpu", "cuda", "cuda:1".
using System;
using Ctorch.Swig;

namespace Ctorch
{
    /// <summary>
    /// A device, as torch.device: a type and an optional index (-1 when there is none; for CUDA
    /// that means the current CUDA device). <c>default(Device)</c> is <see cref="Cpu"/>.
    /// Equality compares type and index, so "cuda" != "cuda:0", as in PyTorch.
    /// </summary>
    public readonly struct Device : IEquatable<Device>
    {
        private readonly int _indexPlusOne; // 0 for "no index", so default(Device) is "cpu"

        public DeviceType Type { get; }

        /// <summary>The index, or -1 when the device has none.</summary>
        public int Index => _indexPlusOne - 1;

        public bool HasIndex => _indexPlusOne > 0;
        public bool IsCpu => Type == DeviceType.Cpu;
        public bool IsCuda => Type == DeviceType.Cuda;

        public Device(DeviceType type, int index = -1)
        {
            if (index < -1) throw new ArgumentOutOfRangeException(nameof(index), "device index must be >= -1");
            Type = type;
            _indexPlusOne = index + 1;
        }

        /// <summary>Same as <see cref="Parse"/>.</summary>
        public Device(string device)
        {
            this = Parse(device);
        }

        /// <summary>The CPU device ("cpu").</summary>
        public static Device Cpu => new Device(DeviceType.Cpu);

        /// <summary>The current CUDA device ("cuda").</summary>
        public static Device Cuda => new Device(DeviceType.Cuda);

        /// <summary>A CUDA device with an index ("cuda:N").</summary>
        public static Device CudaAt(int index)
        {
            if (index < 0) throw new ArgumentOutOfRangeException(nameof(index), "CUDA device index must be >= 0");
            return new Device(DeviceType.Cuda, index);
        }

        /// <summary>Parses "cpu", "cpu:0", "cuda", "cuda:N" exactly as torch.device does.
        /// Throws CtorchException (CT_ERR_DEVICE_STRING) for anything else.</summary>
        public static Device Parse(string device)
        {
            if (device == null) throw new ArgumentNullException(nameof(device));
            int type, index;
            Native.Check(ctorch.ct_device_parse(device, out type, out index));
            return new Device((DeviceType)type, index);
        }

        /// <summary>Parses like <see cref="Parse"/>; false instead of an exception.</summary>
        public static bool TryParse(string device, out Device result)
        {
            result = default(Device);
            if (device == null) return false;
            int type, index;
            if (ctorch.ct_device_parse(device, out type, out index) != 0) return false;
            result = new Device((DeviceType)type, index);
            return true;
        }

        /// <summary>The device as torch prints it: "cpu", "cuda", "cuda:1".</summary>
        public override string ToString()
        {
            int type = (int)Type, index = Index;
            return Native.GetString((IntPtr buf, long cap, out long needed) =>
                ctorch.ct_device_format(type, index, buf, cap, out needed));
        }

        // The C signature of ct_tensor_device and ct_generator_device.
        internal delegate int DeviceCall(IntPtr handle, out int type, out int index);

        /// <summary>The device a C call reports for a handle.</summary>
        internal static Device Of(DeviceCall call, IntPtr handle)
        {
            int type, index;
            Native.Check(call(handle, out type, out index));
            return new Device((DeviceType)type, index);
        }

        public bool Equals(Device other) => Type == other.Type && _indexPlusOne == other._indexPlusOne;
        public override bool Equals(object obj) => obj is Device d && Equals(d);
        public override int GetHashCode() => ((int)Type * 397) ^ _indexPlusOne;
        public static bool operator ==(Device a, Device b) => a.Equals(b);
        public static bool operator !=(Device a, Device b) => !a.Equals(b);
    }
}
