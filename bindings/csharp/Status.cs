// Status codes and exceptions of the ctorch C# binding.
using System;
using System.Runtime.Serialization;
using Ctorch.Swig;

namespace Ctorch
{
    // enum StatusCode (the codes of capi/abi.toml) is generated into Abi.g.cs.

    /// <summary>
    /// A failed ctorch call. <see cref="Code"/> is the C status code, <see cref="StatusName"/>
    /// its name (<c>ct_status_name</c>, e.g. "CT_ERR_SHAPE") and <see cref="NativeMessage"/>
    /// the message the library stored for the failing call (<c>ct_last_error_message</c>, read
    /// on the same thread right after the call). <see cref="Exception.Message"/> is
    /// "StatusName: NativeMessage".
    /// </summary>
    [Serializable]
    public class CtorchException : Exception
    {
        public StatusCode Code { get; }
        public string StatusName { get; }
        public string NativeMessage { get; }

        public CtorchException(StatusCode code, string statusName, string nativeMessage)
            : base(statusName + ": " + nativeMessage)
        {
            Code = code;
            StatusName = statusName;
            NativeMessage = nativeMessage;
        }

        protected CtorchException(SerializationInfo info, StreamingContext context)
            : base(info, context)
        {
            Code = (StatusCode)info.GetInt32("Code");
            StatusName = info.GetString("StatusName");
            NativeMessage = info.GetString("NativeMessage");
        }

        public override void GetObjectData(SerializationInfo info, StreamingContext context)
        {
            base.GetObjectData(info, context);
            info.AddValue("Code", (int)Code);
            info.AddValue("StatusName", StatusName);
            info.AddValue("NativeMessage", NativeMessage);
        }

        /// <summary>The exception for a non-zero status. Must be called on the thread of the
        /// failing call, before any other ctorch call on it, so the message is still there.</summary>
        public static CtorchException FromStatus(int status)
        {
            string message = ctorch.ct_last_error_message() ?? "";
            string name = ctorch.ct_status_name(status) ?? "CT_UNKNOWN";
            if (status == (int)StatusCode.OutOfMemory)
                return new CtorchOutOfMemoryException(name, message);
            if (status == (int)StatusCode.Timeout)
                return new CtorchTimeoutException(name, message);
            if (status == (int)StatusCode.DataRace)
                return new CtorchDataRaceException(name, message);
            if (status == (int)StatusCode.Comm)
                return new CtorchCommException(name, message);
            return new CtorchException((StatusCode)status, name, message);
        }
    }

    /// <summary>CT_ERR_OUT_OF_MEMORY (400): a host or device allocation failed.</summary>
    [Serializable]
    public class CtorchOutOfMemoryException : CtorchException
    {
        public CtorchOutOfMemoryException(string statusName, string nativeMessage)
            : base(StatusCode.OutOfMemory, statusName, nativeMessage) { }

        protected CtorchOutOfMemoryException(SerializationInfo info, StreamingContext context)
            : base(info, context) { }
    }

    /// <summary>CT_ERR_TIMEOUT (201): a wait ran past its timeout, e.g. an NCCL communicator
    /// whose peers did not join or whose collective did not finish in time (the communicator is
    /// then aborted; see <see cref="NcclComm"/>).</summary>
    [Serializable]
    public class CtorchTimeoutException : CtorchException
    {
        public CtorchTimeoutException(string statusName, string nativeMessage)
            : base(StatusCode.Timeout, statusName, nativeMessage) { }

        protected CtorchTimeoutException(SerializationInfo info, StreamingContext context)
            : base(info, context) { }
    }

    /// <summary>CT_ERR_DATA_RACE (202): the stream sanitizer (<see cref="CudaSanitizer"/>, error
    /// mode) found a kernel reading or writing a tensor's memory while a kernel on another stream
    /// may still be writing it (or, for a write, reading it), with no synchronization in between.
    /// The op's kernel was queued; <see cref="CtorchException.NativeMessage"/> holds every report
    /// (both accesses' ops, streams, argument names and tensors).</summary>
    [Serializable]
    public class CtorchDataRaceException : CtorchException
    {
        public CtorchDataRaceException(string statusName, string nativeMessage)
            : base(StatusCode.DataRace, statusName, nativeMessage) { }

        protected CtorchDataRaceException(SerializationInfo info, StreamingContext context)
            : base(info, context) { }
    }

    /// <summary>CT_ERR_COMM (303): NCCL or a peer reported an error; the communicator cannot be
    /// used any more (see <see cref="NcclComm"/>).</summary>
    [Serializable]
    public class CtorchCommException : CtorchException
    {
        public CtorchCommException(string statusName, string nativeMessage)
            : base(StatusCode.Comm, statusName, nativeMessage) { }

        protected CtorchCommException(SerializationInfo info, StreamingContext context)
            : base(info, context) { }
    }
}
