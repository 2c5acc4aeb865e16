// A program outside the workspace that uses the Ctorch NuGet package (tests/dist/csharp/
// consumer_test.sh): prints a tensor and checks a value computed here.
using System;
using Ctorch;

public static class Program
{
    public static int Main()
    {
        Console.WriteLine($"ctorch {Torch.Version}");
        using (DisposeScope.Begin())
        {
            // [[1, 2], [3, 4]] @ [[1, 2], [3, 4]] = [[7, 10], [15, 22]]
            Tensor a = Tensor.FromArray(new float[] { 1, 2, 3, 4 }, 2, 2);
            Tensor product = a.Matmul(a);
            Console.WriteLine(product);
            float[] got = product.ToArray<float>();
            float[] want = { 7, 10, 15, 22 };
            for (int i = 0; i < want.Length; i++)
            {
                if (got[i] != want[i])
                {
                    Console.Error.WriteLine($"element {i}: got {got[i]}, want {want[i]}");
                    return 1;
                }
            }
        }
        Console.WriteLine("ok");
        return 0;
    }
}
